//! The scenario formats: round trips, errors with positions, and hostile input.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use blast_engine::sim::estimate_work;
use blast_engine::{dsl, presets, Params, Policy, Simulation};

#[test]
fn every_preset_round_trips_through_dsl_and_json() {
    for p in presets::all() {
        let s = p.scenario();
        let text = dsl::print(&s);
        assert_eq!(dsl::parse(&text).unwrap(), s, "{}: DSL round trip", p.id);
        assert_eq!(dsl::print(&dsl::parse(&text).unwrap()), text, "{}: printing is stable", p.id);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(dsl::from_json(&json).unwrap(), s, "{}: JSON round trip", p.id);
        assert_eq!(dsl::parse_any(&json).unwrap(), s);
    }
}

fn error_of(text: &str) -> String {
    dsl::parse(text).expect_err("must be rejected").to_string()
}

#[test]
fn errors_name_line_and_column() {
    let cases = [
        ("class A {\n  m\nop { loop 1 { } }", "3:4: expected a method name or `}`, found `{`"),
        ("class A extends B\nop { loop 1 { } }", "1:17: class `A` extends unknown class `B`"),
        ("class A extends B\nclass B extends A\nop { loop 1 { } }", "1:17: cyclic hierarchy: A -> B -> A"),
        ("class A { m }\nsite s = Z.m\nop { loop 1 { call s } }", "2:10: site `s` calls on unknown class `Z`"),
        ("class A { m }\nsite s = A.m\nop {\n  loop 10 { call t }\n}", "4:18: unknown site `t`"),
        ("op { loop 99999999999999999999999 { } }", "1:11: number `99999999999999999999999` is too large"),
        ("op { loop 0 { } }", "1:11: loop count must be"),
        ("class A { m }\nsite s = A.m\nop { call s }", "3:6: `call` belongs directly inside a `loop`"),
        ("class A\nop { loop 5 { every 0 { write A.x } } }", "2:21: period must be"),
        ("frobnicate", "1:1: unknown declaration `frobnicate`"),
        ("class A { m }\nop { loop 1 { } }\n@", "3:1: unexpected character `@`"),
        ("class A\nclass A\nop { loop 1 { } }", "2:7: class `A` is declared twice"),
        ("class A\nop { loop 3 { } use Nope { } }", "2:21: unknown category `Nope`"),
        ("class A", "1:8: missing `op { .. }` block"),
    ];
    for (text, want) in cases {
        let got = error_of(text);
        assert!(got.starts_with(want), "for {text:?}\n got: {got}\nwant: {want}");
    }
}

#[test]
fn json_errors_name_the_place() {
    let e = dsl::from_json("{\"classes\": [ {\"name\": 3} ]}").unwrap_err().to_string();
    assert!(e.starts_with("1:"), "{e}");
    let e = dsl::from_json(r#"{"classes":[{"name":"A","parent":"B"},{"name":"B","parent":"A"}],"op":[]}"#).unwrap_err().to_string();
    assert!(e.starts_with("classes[0].parent: cyclic hierarchy"), "{e}");
}

#[test]
fn absurd_sizes_are_refused_before_running() {
    let text = "measure warmup 0 ops 10000\nclass A { m }\nsite s = A.m\nop { loop 1000000000000 { every 1 { write A.x } call s } }";
    let s = dsl::parse(text).unwrap();
    assert!(estimate_work(&s) > blast_engine::sim::MAX_WORK);
    let e = Simulation::new(&s, Policy::Exact, &Params::default()).err().unwrap();
    // The refusal names the dominant term.
    assert!(e.to_string().contains("most of it is 10,000,000,000,010,000 events x 1 sites and 1 classes"), "{e}");
}

/// Deterministic xorshift, so the fuzz cases are the same on every machine.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mangled_scenarios_never_panic() {
    let alphabet: Vec<char> = "{}=.;#\"\n 0123456789abcxyzAB_$-@é".chars().collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for round in 0..1500 {
        let base = presets::all()[round % presets::all().len()].text;
        let mut chars: Vec<char> = base.chars().collect();
        for _ in 0..1 + rng.below(6) {
            let at = rng.below(chars.len());
            match rng.below(4) {
                0 => {
                    chars.remove(at);
                }
                1 => chars.insert(at, alphabet[rng.below(alphabet.len())]),
                2 => {
                    for _ in 0..rng.below(30) {
                        chars.insert(at, '9');
                    }
                }
                _ => {
                    let end = (at + rng.below(40)).min(chars.len());
                    chars.drain(at..end);
                }
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok(s) = dsl::parse(&text) {
            accepted += 1;
            assert_eq!(dsl::parse(&dsl::print(&s)).as_ref(), Ok(&s), "round trip of accepted mangled text");
            if estimate_work(&s) < 20_000 {
                if let Ok(sim) = Simulation::new(&s, Policy::Exact, &Params::default()) {
                    let r = sim.run();
                    assert!(r.ops_per_ms.is_finite() || r.ops_per_ms.is_infinite());
                }
            }
        }
    }
    assert!(accepted > 10, "the mangler should leave some scenarios valid ({accepted})");
}
