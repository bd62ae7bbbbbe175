//! A scenario's expectations in the read reply (`wire`), as values: the page rebuilds them
//! without the DSL parser, which only the engine worker ships.
//!
//! The form is `wire`'s own (LEB128 numbers, strings as length + UTF-8, an enum as its tag), not
//! serde's: `Expectation`'s derive is internally tagged (for JSON), which postcard cannot carry.
//! The writer destructures every variant, so a new field does not compile until it is carried;
//! the reader is total (a bad tag or a cut is an error, never a panic).

use blast_engine::expect::spec::MAX_SCALE;
use blast_engine::expect::{Cmp, Decimal, EventPattern, Expectation, FigureRef, Metric, SiteClaim, Subject};
use blast_engine::Policy;

use crate::worker::codec::{Read, Reader, Writer};

pub(crate) fn put(w: &mut Writer, expectations: &[Expectation]) {
    w.num(expectations.len() as u64);
    for e in expectations {
        match e {
            Expectation::Relinks { policies, event, sites } => {
                w.num(0);
                policy_list(w, policies);
                pattern(w, event);
                site_claim(w, sites);
            }
            Expectation::Value { policies, metric, site, cmp, value, per_event } => {
                w.num(1);
                policy_list(w, policies);
                put_metric(w, *metric);
                w.opt(site);
                put_cmp(w, *cmp);
                decimal(w, *value);
                w.bool(*per_event);
            }
            Expectation::Ratio { a, b, cmp, factor, metric } => {
                w.num(2);
                w.policy(*a);
                w.policy(*b);
                put_cmp(w, *cmp);
                decimal(w, *factor);
                put_metric(w, *metric);
            }
            Expectation::Order { a, cmp, b, metric } => {
                w.num(3);
                w.policy(*a);
                put_cmp(w, *cmp);
                w.policy(*b);
                put_metric(w, *metric);
            }
            Expectation::Figure { subject, metric, tolerance_pct, reference } => {
                w.num(4);
                match subject {
                    Subject::Run { policies } => {
                        w.num(0);
                        policy_list(w, policies);
                    }
                    Subject::Ratio { a, b } => {
                        w.num(1);
                        w.policy(*a);
                        w.policy(*b);
                    }
                }
                put_metric(w, *metric);
                decimal(w, *tolerance_pct);
                match reference {
                    FigureRef::Published(row) => {
                        w.num(0);
                        w.str(row);
                    }
                    FigureRef::Given(d) => {
                        w.num(1);
                        decimal(w, *d);
                    }
                }
            }
        }
    }
}

pub(crate) fn take(r: &mut Reader) -> Read<Vec<Expectation>> {
    r.list(|r| {
        Ok(match r.num()? {
            0 => Expectation::Relinks { policies: policies(r)?, event: take_pattern(r)?, sites: take_site_claim(r)? },
            1 => Expectation::Value { policies: policies(r)?, metric: metric(r)?, site: r.opt()?, cmp: cmp(r)?, value: take_decimal(r)?, per_event: r.bool()? },
            2 => Expectation::Ratio { a: r.policy()?, b: r.policy()?, cmp: cmp(r)?, factor: take_decimal(r)?, metric: metric(r)? },
            3 => Expectation::Order { a: r.policy()?, cmp: cmp(r)?, b: r.policy()?, metric: metric(r)? },
            4 => {
                let subject = match r.num()? {
                    0 => Subject::Run { policies: policies(r)? },
                    1 => Subject::Ratio { a: r.policy()?, b: r.policy()? },
                    _ => return Err("bad expectation subject"),
                };
                let (metric, tolerance_pct) = (metric(r)?, take_decimal(r)?);
                let reference = match r.num()? {
                    0 => FigureRef::Published(r.str()?),
                    1 => FigureRef::Given(take_decimal(r)?),
                    _ => return Err("bad expectation reference"),
                };
                Expectation::Figure { subject, metric, tolerance_pct, reference }
            }
            _ => return Err("bad expectation"),
        })
    })
}

fn policy_list(w: &mut Writer, policies: &[Policy]) {
    w.num(policies.len() as u64);
    for p in policies {
        w.policy(*p);
    }
}

fn policies(r: &mut Reader) -> Read<Vec<Policy>> {
    r.list(|r| r.policy())
}

fn put_metric(w: &mut Writer, m: Metric) {
    w.num(Metric::ALL.iter().position(|x| *x == m).unwrap_or(0) as u64);
}

fn put_cmp(w: &mut Writer, c: Cmp) {
    w.num(Cmp::ALL.iter().position(|x| *x == c).unwrap_or(0) as u64);
}

fn metric(r: &mut Reader) -> Read<Metric> {
    Metric::ALL.get(r.num()? as usize).copied().ok_or("bad metric")
}

fn cmp(r: &mut Reader) -> Read<Cmp> {
    Cmp::ALL.get(r.num()? as usize).copied().ok_or("bad comparison")
}

fn decimal(w: &mut Writer, Decimal { units, scale }: Decimal) {
    w.num(units);
    w.num(u64::from(scale));
}

fn take_decimal(r: &mut Reader) -> Read<Decimal> {
    let units = r.num()?;
    let scale = u8::try_from(r.num()?).ok().filter(|&s| s <= MAX_SCALE).ok_or("bad decimal")?;
    Ok(Decimal { units, scale })
}

fn pattern(w: &mut Writer, p: &EventPattern) {
    let named = |w: &mut Writer, tag, name: &str| {
        w.num(tag);
        w.str(name);
    };
    match p {
        EventPattern::Write { class, method } => {
            named(w, 0, class);
            w.str(method);
        }
        EventPattern::Replace { class } => named(w, 1, class),
        EventPattern::Remove { class } => named(w, 2, class),
        EventPattern::Instance { class } => named(w, 3, class),
        EventPattern::Load { class } => named(w, 4, class),
        EventPattern::Use { category } => named(w, 5, category),
        EventPattern::Enter { category } => named(w, 6, category),
        EventPattern::Leave { category } => named(w, 7, category),
        EventPattern::InvalidateAll => w.num(8),
        EventPattern::Unattributed => w.num(9),
        EventPattern::Any => w.num(10),
    }
}

fn take_pattern(r: &mut Reader) -> Read<EventPattern> {
    Ok(match r.num()? {
        0 => EventPattern::Write { class: r.str()?, method: r.str()? },
        1 => EventPattern::Replace { class: r.str()? },
        2 => EventPattern::Remove { class: r.str()? },
        3 => EventPattern::Instance { class: r.str()? },
        4 => EventPattern::Load { class: r.str()? },
        5 => EventPattern::Use { category: r.str()? },
        6 => EventPattern::Enter { category: r.str()? },
        7 => EventPattern::Leave { category: r.str()? },
        8 => EventPattern::InvalidateAll,
        9 => EventPattern::Unattributed,
        10 => EventPattern::Any,
        _ => return Err("bad event pattern"),
    })
}

fn site_claim(w: &mut Writer, c: &SiteClaim) {
    let tag = match c {
        SiteClaim::All(_) => 0,
        SiteClaim::NoneOf(_) => 1,
        SiteClaim::Only(_) => 2,
        SiteClaim::Nothing => 3,
    };
    w.num(tag);
    if tag != 3 {
        w.strs(c.sites());
    }
}

fn take_site_claim(r: &mut Reader) -> Read<SiteClaim> {
    Ok(match r.num()? {
        0 => SiteClaim::All(r.strs()?),
        1 => SiteClaim::NoneOf(r.strs()?),
        2 => SiteClaim::Only(r.strs()?),
        3 => SiteClaim::Nothing,
        _ => return Err("bad site claim"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::{dsl, presets, runtimes};

    fn encoded(expectations: &[Expectation]) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        put(&mut w, expectations);
        w.0
    }

    fn decoded(bytes: &[u8]) -> Read<Vec<Expectation>> {
        let mut r = Reader { bytes, at: 0 };
        let expectations = take(&mut r)?;
        r.end()?;
        Ok(expectations)
    }

    /// Every expectation a preset or a runtime's scenario ships, and one of each kind the
    /// shipped ones may lack (a given figure, an order, a ratio subject, every pattern).
    fn every_expectation() -> Vec<Expectation> {
        let mut texts: Vec<String> = presets::all().iter().map(|p| p.text.to_string()).collect();
        texts.extend(runtimes::PROFILES.iter().map(|r| r.scenario_text()));
        texts.push(
            "expect under global, exact: write A.m relinks [s, t]\nexpect under exact: replace A relinks none of [s]\n\
             expect under ideal: remove A relinks only [s]\nexpect under global: instance A relinks nothing\n\
             expect under global: load A relinks nothing\nexpect under global: use C relinks nothing\n\
             expect under global: enter C relinks nothing\nexpect under global: leave C relinks nothing\n\
             expect under global: invalidate all relinks nothing\nexpect under global: unattributed relinks nothing\n\
             expect under global: any event relinks nothing\nexpect under exact: necessary at s >= 1.25 per event\n\
             expect exact / global >= 10x ops\nexpect ideal <= exact relinks\n\
             expect exact / global ops within 25% of 210.5\nexpect under exact: ops within 30% of published hot\nop { }\n"
                .to_string(),
        );
        texts.iter().flat_map(|t| dsl::parse_unchecked(t).expect("parses").0.expectations).collect()
    }

    #[test]
    fn every_shipped_and_every_kind_of_expectation_round_trips() {
        let all = every_expectation();
        assert!(all.len() > 20, "{} expectations", all.len());
        for kind in ["Relinks", "Value", "Ratio", "Order", "Figure"] {
            assert!(all.iter().any(|e| format!("{e:?}").starts_with(kind)), "no {kind} expectation");
        }
        assert_eq!(decoded(&encoded(&all)), Ok(all.clone()));
        for e in &all {
            assert_eq!(decoded(&encoded(std::slice::from_ref(e))), Ok(vec![e.clone()]), "{e}");
        }
    }

    #[test]
    fn cut_or_damaged_expectations_are_an_error_not_a_panic() {
        let bytes = encoded(&every_expectation());
        for cut in 0..bytes.len() {
            assert!(decoded(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes;
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decoded(&flipped);
            flipped[i] ^= 0xff;
        }
        // A decimal with more digits after the point than the DSL allows is refused.
        // One `Value` under no policy, `ops` at no site, `==`, 1 with too many digits.
        let mut w = Writer(Vec::new());
        for n in [1, 1, 0, 0, 0, 0, 1, u64::from(MAX_SCALE) + 1, 0] {
            w.num(n);
        }
        assert_eq!(decoded(&w.0), Err("bad decimal"));
    }
}
