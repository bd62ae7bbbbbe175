//! What an expectation says, as data: the model the DSL parses into, the JSON carries and the
//! evaluator reads. `Display` is the DSL spelling (`dsl::print` uses it), so a parsed
//! expectation prints back to text that parses to the same value.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::policy::Policy;
use crate::spelling::named;

/// One `expect ...` line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "claim", rename_all = "kebab-case")]
pub enum Expectation {
    /// `expect under exact: write Unrelated.* relinks none of [hot, loopTest]`: which sites the
    /// matching events relink (a necessary or collateral re-selection) under each policy.
    Relinks { policies: Vec<Policy>, event: EventPattern, sites: SiteClaim },
    /// `expect under exact: missed == 0`, `necessary at childBase >= 1`, `ops >= 0.3`,
    /// `relinks <= 6 per event`: one run's figure against a bound.
    Value {
        policies: Vec<Policy>,
        metric: Metric,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        site: Option<String>,
        cmp: Cmp,
        value: Decimal,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        per_event: bool,
    },
    /// `expect exact / global >= 10x ops`: the ratio of one figure under two policies.
    Ratio { a: Policy, b: Policy, cmp: Cmp, factor: Decimal, metric: Metric },
    /// `expect ideal <= exact relinks`: one figure under two policies, compared directly.
    Order { a: Policy, cmp: Cmp, b: Policy, metric: Metric },
    /// `expect under exact: ops within 30% of published`, `expect exact / global ops within
    /// 25% of 210`: a figure (or a ratio of figures) against a published or measured one.
    Figure { subject: Subject, metric: Metric, tolerance_pct: Decimal, reference: FigureRef },
}

/// Which events a relink expectation is about: a kind and the names it must match (`*` = any).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "kebab-case")]
pub enum EventPattern {
    Write {
        class: String,
        method: String,
    },
    Replace {
        class: String,
    },
    Remove {
        class: String,
    },
    Instance {
        class: String,
    },
    Load {
        class: String,
    },
    /// A category enter or leave (`use Cat { .. }` fires both).
    Use {
        category: String,
    },
    Enter {
        category: String,
    },
    Leave {
        category: String,
    },
    InvalidateAll,
    Unattributed,
    /// Every event.
    Any,
}

/// The wildcard in event patterns.
pub const ANY_NAME: &str = "*";

/// What the matching events do to the listed sites.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "quantifier", content = "sites", rename_all = "kebab-case")]
pub enum SiteClaim {
    /// `relinks [a, b]`: each listed site is relinked at least once by a matching event.
    All(Vec<String>),
    /// `relinks none of [a, b]`: no listed site is relinked by a matching event.
    NoneOf(Vec<String>),
    /// `relinks only [a, b]`: no site outside the list is relinked by a matching event.
    Only(Vec<String>),
    /// `relinks nothing`: no site at all is relinked by a matching event.
    Nothing,
}

impl SiteClaim {
    pub fn sites(&self) -> &[String] {
        match self {
            SiteClaim::All(s) | SiteClaim::NoneOf(s) | SiteClaim::Only(s) => s,
            SiteClaim::Nothing => &[],
        }
    }
}

/// A figure of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Measured throughput, ops/ms.
    Ops,
    /// Necessary + collateral re-selections (what counts as a relink everywhere).
    Relinks,
    Necessary,
    Collateral,
    /// Stale dispatches the oracle saw (a link whose target changed but whose guard held).
    Missed,
    /// Deoptimizations of compiled loop code: a retirement broke a dependency of C2 code that
    /// had inlined a site's fast chain (`crate::jit`). A count of the run, not of a site.
    Deopts,
}

impl Metric {
    pub const ALL: [Metric; 6] = [Metric::Ops, Metric::Relinks, Metric::Necessary, Metric::Collateral, Metric::Missed, Metric::Deopts];

    pub fn name(self) -> &'static str {
        match self {
            Metric::Ops => "ops",
            Metric::Relinks => "relinks",
            Metric::Necessary => "necessary",
            Metric::Collateral => "collateral",
            Metric::Missed => "missed",
            Metric::Deopts => "deopts",
        }
    }

    /// Counts only grow while a run progresses; throughput is known only at its end.
    pub fn is_count(self) -> bool {
        self != Metric::Ops
    }
}

named!(Metric, "metric");

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub const ALL: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

    pub fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }

    pub fn holds(self, observed: f64, bound: f64) -> bool {
        match self {
            Cmp::Eq => observed == bound,
            Cmp::Ne => observed != bound,
            Cmp::Lt => observed < bound,
            Cmp::Le => observed <= bound,
            Cmp::Gt => observed > bound,
            Cmp::Ge => observed >= bound,
        }
    }
}

named!(Cmp, "comparison");

/// What a `within` expectation measures: one policy's figure, or the ratio of two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "of", rename_all = "kebab-case")]
pub enum Subject {
    Run { policies: Vec<Policy> },
    Ratio { a: Policy, b: Policy },
}

/// What a `within` expectation compares with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "source", content = "value", rename_all = "kebab-case")]
pub enum FigureRef {
    /// The published row of this benchmark (`crates/engine/data/`, via `reference`), named
    /// explicitly so a copied and renamed scenario keeps its reference.
    Published(String),
    /// A figure the author measured or read elsewhere, written into the expectation.
    Given(Decimal),
}

/// An exact decimal as written (`1.5`, `0.00243`): `units / 10^scale`. Kept exact so the
/// scenario stays `Eq` and prints back to the same text; JSON carries it as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Decimal {
    pub units: u64,
    pub scale: u8,
}

/// At most this many digits after the point.
pub const MAX_SCALE: u8 = 12;

impl Decimal {
    pub fn whole(n: u64) -> Decimal {
        Decimal { units: n, scale: 0 }
    }

    pub fn value(self) -> f64 {
        self.units as f64 / 10f64.powi(self.scale as i32)
    }

    /// No fraction (`3`, `3.0`): what a count can be compared with.
    pub fn is_whole(self) -> bool {
        self.units.is_multiple_of(10u64.pow(self.scale as u32))
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.scale == 0 {
            return write!(f, "{}", self.units);
        }
        let digits = format!("{:0>width$}", self.units, width = self.scale as usize + 1);
        let (int, frac) = digits.split_at(digits.len() - self.scale as usize);
        write!(f, "{int}.{frac}")
    }
}

/// Why a text is not a [`Decimal`] (the text is in each case). Its `Display` is the message:
/// serde's `try_from` (below) reports it inside its own located error, and the DSL places it
/// at the number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecimalError {
    /// Not digits, optionally a point and more digits.
    NotDecimal(String),
    /// More than [`MAX_SCALE`] digits after the point.
    TooPrecise(String),
    /// Its digits do not fit in a `u64`.
    TooLarge(String),
}

impl fmt::Display for DecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecimalError::NotDecimal(s) => write!(f, "`{s}` is not a decimal number (digits, optionally a point and more digits)"),
            DecimalError::TooPrecise(s) => write!(f, "`{s}` has more than {MAX_SCALE} digits after the point"),
            DecimalError::TooLarge(s) => write!(f, "number `{s}` is too large"),
        }
    }
}

impl std::error::Error for DecimalError {}

impl std::str::FromStr for Decimal {
    type Err = DecimalError;

    fn from_str(s: &str) -> Result<Decimal, DecimalError> {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let ok = !int.is_empty() && int.chars().all(|c| c.is_ascii_digit()) && frac.chars().all(|c| c.is_ascii_digit()) && (s.contains('.') != frac.is_empty());
        if !ok {
            return Err(DecimalError::NotDecimal(s.to_string()));
        }
        if frac.len() > MAX_SCALE as usize {
            return Err(DecimalError::TooPrecise(s.to_string()));
        }
        let units = format!("{int}{frac}").parse::<u64>().map_err(|_| DecimalError::TooLarge(s.to_string()))?;
        Ok(Decimal { units, scale: frac.len() as u8 })
    }
}

impl TryFrom<String> for Decimal {
    type Error = DecimalError;
    fn try_from(s: String) -> Result<Decimal, DecimalError> {
        s.parse()
    }
}

impl From<Decimal> for String {
    fn from(d: Decimal) -> String {
        d.to_string()
    }
}

impl fmt::Display for EventPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventPattern::Write { class, method } => write!(f, "write {}.{}", class, method),
            EventPattern::Replace { class } => write!(f, "replace {class}"),
            EventPattern::Remove { class } => write!(f, "remove {class}"),
            EventPattern::Instance { class } => write!(f, "instance {class}"),
            EventPattern::Load { class } => write!(f, "load {class}"),
            EventPattern::Use { category } => write!(f, "use {category}"),
            EventPattern::Enter { category } => write!(f, "enter {category}"),
            EventPattern::Leave { category } => write!(f, "leave {category}"),
            EventPattern::InvalidateAll => write!(f, "invalidate all"),
            EventPattern::Unattributed => write!(f, "unattributed"),
            EventPattern::Any => write!(f, "any event"),
        }
    }
}

fn list(sites: &[String]) -> String {
    format!("[{}]", sites.join(", "))
}

impl fmt::Display for SiteClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SiteClaim::All(s) => write!(f, "relinks {}", list(s)),
            SiteClaim::NoneOf(s) => write!(f, "relinks none of {}", list(s)),
            SiteClaim::Only(s) => write!(f, "relinks only {}", list(s)),
            SiteClaim::Nothing => write!(f, "relinks nothing"),
        }
    }
}

fn under(policies: &[Policy]) -> String {
    let names: Vec<&str> = policies.iter().map(|p| p.name()).collect();
    format!("under {}:", names.join(", "))
}

impl fmt::Display for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expect ")?;
        match self {
            Expectation::Relinks { policies, event, sites } => write!(f, "{} {event} {sites}", under(policies)),
            Expectation::Value { policies, metric, site, cmp, value, per_event } => {
                write!(f, "{} {metric}", under(policies))?;
                if let Some(site) = site {
                    write!(f, " at {site}")?;
                }
                write!(f, " {cmp} {value}")?;
                if *per_event {
                    f.write_str(" per event")?;
                }
                Ok(())
            }
            Expectation::Ratio { a, b, cmp, factor, metric } => write!(f, "{a} / {b} {cmp} {factor}x {metric}"),
            Expectation::Order { a, cmp, b, metric } => write!(f, "{a} {cmp} {b} {metric}"),
            Expectation::Figure { subject, metric, tolerance_pct, reference } => {
                match subject {
                    Subject::Run { policies } => write!(f, "{} {metric}", under(policies))?,
                    Subject::Ratio { a, b } => write!(f, "{a} / {b} {metric}")?,
                }
                write!(f, " within {tolerance_pct}% of ")?;
                match reference {
                    FigureRef::Published(row) => write!(f, "published {row}"),
                    FigureRef::Given(d) => write!(f, "{d}"),
                }
            }
        }
    }
}

impl Expectation {
    /// Every policy whose run this expectation reads, in first-mention order.
    pub fn policies(&self) -> Vec<Policy> {
        let mut out: Vec<Policy> = match self {
            Expectation::Relinks { policies, .. } | Expectation::Value { policies, .. } => policies.clone(),
            Expectation::Figure { subject: Subject::Run { policies }, .. } => policies.clone(),
            Expectation::Ratio { a, b, .. } | Expectation::Order { a, b, .. } | Expectation::Figure { subject: Subject::Ratio { a, b }, .. } => vec![*a, *b],
        };
        let mut seen = Vec::new();
        out.retain(|p| {
            let new = !seen.contains(p);
            seen.push(*p);
            new
        });
        out
    }
}

impl Expectation {
    /// The claim restated as what a run must show (the "expected" line of a failure).
    pub fn expected(&self) -> String {
        let names = |ps: &[Policy]| ps.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
        match self {
            Expectation::Relinks { policies, event, sites } => {
                let what = match sites {
                    SiteClaim::All(l) => format!("each of {} relinked", list(l)),
                    SiteClaim::NoneOf(l) => format!("none of {} relinked", list(l)),
                    SiteClaim::Only(l) => format!("no site outside {} relinked", list(l)),
                    SiteClaim::Nothing => "no site relinked".to_string(),
                };
                format!("{what} by `{event}` under {}", names(policies))
            }
            Expectation::Value { policies, metric, site, cmp, value, per_event } => {
                let at = site.as_ref().map(|s| format!(" at {s}")).unwrap_or_default();
                let per = if *per_event { " per event" } else { "" };
                format!("{metric}{at} {cmp} {value}{per} under {}", names(policies))
            }
            Expectation::Ratio { a, b, cmp, factor, metric } => format!("{metric} {a} / {b} {cmp} {factor}"),
            Expectation::Order { a, cmp, b, metric } => format!("{metric}: {a} {cmp} {b}"),
            Expectation::Figure { subject, metric, tolerance_pct, reference } => {
                let of = match subject {
                    Subject::Run { policies } => format!("{metric} under {}", names(policies)),
                    Subject::Ratio { a, b } => format!("{metric} {a} / {b}"),
                };
                let reference = match reference {
                    FigureRef::Published(row) => format!("the published {row}"),
                    FigureRef::Given(d) => d.to_string(),
                };
                format!("{of} within {tolerance_pct}% of {reference}")
            }
        }
    }
}

/// Edits that follow the rest of the scenario (the playground's form renames and deletes).
impl Expectation {
    /// The class a pattern names, if any (`write C.*`, `remove C`, ...).
    fn pattern_class(&mut self) -> Option<&mut String> {
        match self {
            Expectation::Relinks {
                event:
                    EventPattern::Write { class, .. }
                    | EventPattern::Replace { class }
                    | EventPattern::Remove { class }
                    | EventPattern::Instance { class }
                    | EventPattern::Load { class },
                ..
            } => Some(class),
            _ => None,
        }
    }

    pub fn rename_class(&mut self, from: &str, to: &str) {
        if let Some(class) = self.pattern_class().filter(|c| c.as_str() == from) {
            *class = to.to_string();
        }
    }

    /// Drop a deleted site from the expectation; `false` when nothing of it is left to check
    /// (its only listed site, or the site its count is about), so it goes too.
    pub fn forget_site(&mut self, name: &str) -> bool {
        match self {
            Expectation::Relinks { sites: SiteClaim::All(l) | SiteClaim::NoneOf(l) | SiteClaim::Only(l), .. } => {
                l.retain(|s| s != name);
                !l.is_empty()
            }
            Expectation::Value { site: Some(s), .. } => s != name,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_read_as_written_and_each_refusal_names_its_text() {
        assert_eq!("0.00243".parse(), Ok(Decimal { units: 243, scale: 5 }));
        assert_eq!("0.00243".parse::<Decimal>().map(|d| d.to_string()), Ok("0.00243".to_string()));
        let refused = |text: &str| text.parse::<Decimal>().unwrap_err();
        for text in ["", "1.", ".5", "1e3", "-1", "1.2.3", "x"] {
            assert_eq!(refused(text), DecimalError::NotDecimal(text.into()), "{text:?}");
        }
        assert_eq!(refused("0.1234567890123"), DecimalError::TooPrecise("0.1234567890123".into()));
        assert_eq!(refused("99999999999999999999"), DecimalError::TooLarge("99999999999999999999".into()));
        assert_eq!(refused("1.2.3").to_string(), "`1.2.3` is not a decimal number (digits, optionally a point and more digits)");
        // serde's `try_from` reports the same message inside its own.
        let json = serde_json::from_str::<Decimal>("\"0.1234567890123\"").unwrap_err().to_string();
        assert!(json.contains("`0.1234567890123` has more than 12 digits after the point"), "{json}");
    }
}
