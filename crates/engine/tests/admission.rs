//! Admission follows the blast radius: an event is charged what it can reach under the policy
//! being run, so a class-scoped write over a huge world is admitted where `global` is refused,
//! and every refusal's terms add up to its total and say which block they come from.

use blast_engine::sim::{estimate_for, thousands, MAX_WORK};
use blast_engine::{dsl, Params, Policy, Simulation};

/// `classes` classes of one method, `sites` sites spread over them in order, then `tail`.
fn world(classes: usize, sites: usize, tail: &str) -> String {
    let mut t = String::from("measure warmup 0 ops 1\n");
    for i in 0..classes {
        t.push_str(&format!("class K{i} {{ m }}\n"));
    }
    for i in 0..sites {
        t.push_str(&format!("site s{i} = K{}.m\n", i * classes / sites));
    }
    t.push_str(tail);
    t
}

#[test]
fn an_exact_write_is_charged_the_sites_of_its_class_not_the_world() {
    let text = world(100_000, 1_000_000, "op { loop 100000 { every 1000 { write K0.m } call s0 call s1 } }");
    let s = dsl::parse(&text).unwrap();
    let exact = estimate_for(&s, Policy::Exact);
    assert!(exact.total <= MAX_WORK, "{}", exact.breakdown());
    // K0 has ten sites: the write is charged tens of units, not millions.
    let events = exact.terms.iter().find(|t| t.what.contains("events in `op`")).unwrap();
    assert!(events.what.ends_with("the largest, `write K0.m`, 49"), "{}", events.what);
    assert!(Simulation::new(&s, Policy::Exact, &Params::default()).is_ok());
    // Under global each write retires every site: refused, and said so.
    let e = Simulation::new(&s, Policy::Global, &Params::default()).err().expect("refused under global").to_string();
    assert!(e.contains("work units under global") && e.contains("101 events in `op` over 1 op, each charged what it can reach under global"), "{e}");
}

#[test]
fn ten_thousand_exact_writes_over_a_million_sites_are_admitted_and_stay_within_their_estimate() {
    let text = world(100_000, 1_000_000, "op { loop 10000 { write K0.m call s0 call s1 } }");
    let s = dsl::parse(&text).unwrap();
    let bound = estimate_for(&s, Policy::Exact).total;
    let mut sim = Simulation::new_owned(s, Policy::Exact, &Params::default()).expect("admitted under exact");
    while !sim.is_finished() {
        sim.step();
    }
    assert_eq!(sim.events_total(), 10_000);
    assert!(sim.work_done() <= bound, "counted {} > estimated {bound}", sim.work_done());
}

#[test]
fn writes_in_setup_on_a_small_world_are_admitted_under_every_policy() {
    let text = format!("class A {{ m }}\nsite s = A.m\nsetup {{ {} }}\nop {{ loop 10 {{ call s }} }}", "write A.m ".repeat(20_000));
    let s = dsl::parse(&text).unwrap();
    for p in Policy::ALL {
        let mut sim = Simulation::new(&s, p, &Params::default()).unwrap_or_else(|e| panic!("{p}: {e}"));
        while !sim.is_finished() {
            sim.step();
        }
        assert!(sim.work_done() <= estimate_for(&s, p).total, "{p}");
    }
}

#[test]
fn a_refusal_of_events_in_setup_says_setup_and_its_terms_add_up() {
    let text = world(1_000, 100_000, &format!("setup {{ {} }}\nop {{ loop 10 {{ call s0 }} }}", "invalidate all ".repeat(2_000)));
    let s = dsl::parse(&text).unwrap();
    let e = Simulation::new(&s, Policy::Exact, &Params::default()).err().expect("refused").to_string();
    let est = estimate_for(&s, Policy::Exact);
    assert_eq!(est.terms.iter().map(|t| t.units).sum::<u64>(), est.total);
    assert!(e.contains(&format!("needs about {} work units under exact", thousands(est.total))), "{e}");
    assert!(e.contains("for 2,000 events in `setup`, each charged what it can reach under exact; the largest, `invalidate all`"), "{e}");
}

#[test]
fn every_preset_stays_within_its_own_policy_estimate() {
    for p in blast_engine::presets::all() {
        let s = p.scenario();
        for policy in Policy::ALL {
            let Ok(mut sim) = Simulation::new(&s, policy, &Params::default()) else { continue };
            while !sim.is_finished() {
                sim.step();
            }
            let bound = estimate_for(&s, policy).total;
            assert!(sim.work_done() <= bound, "{} under {policy}: counted {} > estimated {bound}", p.id, sim.work_done());
        }
    }
}

/// Deterministic xorshift, so the random scenarios are the same on every machine.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A small random scenario: a class forest with metaclasses of every kind, mono- and
/// polymorphic sites, a category, and every kind of event in setup and in the loop.
fn random_scenario(rng: &mut Rng) -> String {
    let kinds = ["stock", "expando", "custom"];
    let n = 2 + rng.below(7);
    let mut t = String::from("measure warmup 1 ops 2\n");
    for i in 0..n {
        t.push_str(&format!("class C{i}"));
        if i > 0 && rng.below(2) == 0 {
            t.push_str(&format!(" extends C{}", rng.below(i)));
        }
        if rng.below(3) == 0 {
            t.push_str(&format!(" metaclass {}", kinds[rng.below(3)]));
        }
        t.push_str(" { m }\n");
    }
    t.push_str("category Cat { C0.m }\n");
    let sites = 1 + rng.below(6);
    for i in 0..sites {
        let first = rng.below(n);
        t.push_str(&format!("site s{i} = C{first}.m"));
        if rng.below(3) == 0 {
            let other = (first + 1 + rng.below(n - 1)) % n;
            t.push_str(&format!(", C{other}.m"));
        }
        t.push('\n');
    }
    let event = |rng: &mut Rng, loads: &mut usize| -> String {
        let c = rng.below(n);
        match rng.below(8) {
            0 | 1 => format!("write C{c}.m{}", rng.below(2)),
            2 => format!("replace C{c} {}", kinds[rng.below(3)]),
            3 => format!("remove C{c}"),
            4 => format!("instance C{c}"),
            5 => {
                *loads += 1;
                format!("load class L{loads} extends C{c} {{ m }}")
            }
            6 => "invalidate all".into(),
            _ => "unattributed".into(),
        }
    };
    let mut loads = 0;
    let setup: Vec<String> = (0..rng.below(4)).map(|_| event(rng, &mut loads)).collect();
    let every: Vec<String> = (0..1 + rng.below(3)).map(|_| event(rng, &mut loads)).collect();
    let calls: Vec<String> = (0..sites).map(|i| format!("call s{i}")).collect();
    t.push_str(&format!("setup {{ {} }}\n", setup.join(" ")));
    let inner = format!("loop {} {{ every {} {{ {} }} {} }}", 50 + rng.below(200), 1 + rng.below(20), every.join(" "), calls.join(" "));
    if rng.below(3) == 0 {
        t.push_str(&format!("op {{ use Cat {{ {inner} }} }}\n"));
    } else {
        t.push_str(&format!("op {{ {inner} }}\n"));
    }
    t
}

#[test]
fn random_small_scenarios_stay_within_each_policy_estimate() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut checked = 0;
    for _ in 0..400 {
        let text = random_scenario(&mut rng);
        let Ok(s) = dsl::parse(&text) else { continue };
        for p in Policy::ALL {
            let Ok(mut sim) = Simulation::new(&s, p, &Params::default()) else { continue };
            while !sim.is_finished() {
                sim.step();
            }
            let bound = estimate_for(&s, p).total;
            assert!(sim.work_done() <= bound, "under {p}: counted {} > estimated {bound} in\n{text}", sim.work_done());
            checked += 1;
        }
    }
    assert!(checked > 1_000, "most random scenarios should be valid ({checked} runs checked)");
}
