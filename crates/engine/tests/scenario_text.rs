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
        // Columns count chars: a comment, a string and Unicode whitespace before the error.
        ("# é ü\nscenario \"größe\" \u{a0}class A { m }\nop { loop 1 { } } ✗", "3:19: unexpected character `✗`"),
        ("scenario \"ü\" §", "1:14: unexpected character `§`"),
        ("scenario \"open\nclass A", "1:10: unterminated string"),
        ("op { loop 1_000_0000000000000000000 { } }", "1:11: number `10000000000000000000000` is too large"),
        ("class A\nclass A\nop { loop 1 { } }", "2:7: class `A` is declared twice"),
        ("class A\nop { loop 3 { } use Nope { } }", "2:21: unknown category `Nope`"),
        ("class A", "1:8: missing `op { .. }` block"),
        // Polymorphic sites: the receivers and the mix.
        ("class A { m }\nclass B { m n }\nsite s = A.m, B.n\nop { loop 1 { call s } }", "3:17: a call site calls one method: expected `B.m`, found `B.n`"),
        (
            "class A { m }\nclass B { m }\nsite s = A.m, B.m mix 1/2/3\nop { loop 1 { call s } }",
            "3:19: site `s` has 2 receiver classes but its mix has 3 weights",
        ),
        (
            "class A { m }\nclass B { m }\nsite s = A.m, B.m mix 1/0\nop { loop 1 { call s } }",
            "3:25: a mix weight is at least 1 (receiver 2 of site `s` has 0)",
        ),
        ("class A { m }\nclass B { m }\nsite s = A.m, B.m mix 1/\nop { loop 1 { call s } }", "4:1: expected a mix weight (`mix 60/30/10`), found `op`"),
        ("class A { m }\nclass B { m }\nsite s = A.m, B.m mix 60 30\nop { loop 1 { call s } }", "3:26: expected a declaration, found number 30"),
        ("class A { m }\nsite s = A.m mix 3\nop { loop 1 { call s } }", "2:14: site `s` has one receiver class; a mix needs two or more"),
        ("class A { m }\nsite s = A.m, A.m\nop { loop 1 { call s } }", "2:15: site `s` names receiver class `A` twice"),
        ("class A { m }\nsite s = A.m, Z.m\nop { loop 1 { call s } }", "2:15: site `s` calls on unknown class `Z`"),
        ("class A { m }\nclass B { m }\nsite s = A.m, B.m mix 999/2\nop { loop 1 { call s } }", "3:19: site `s`'s mix weights add up to 1001; at most 1000"),
        ("class A { m }\nclass B { m }\nsite s = A.m, B.m mix 1/4294967296\nop { loop 1 { call s } }", "3:25: mix weight is too large"),
    ];
    for (text, want) in cases {
        let got = error_of(text);
        assert!(got.starts_with(want), "for {text:?}\n got: {got}\nwant: {want}");
    }
}

#[test]
fn polymorphic_sites_round_trip_with_and_without_a_mix() {
    let text = "class A { m }\nclass B extends A\nclass C { m }\nsite even = A.m, B.m, C.m\nsite mixed = C.m, A.m mix 60/40\nop { loop 10 { call even call mixed } }\n";
    let s = dsl::parse(text).unwrap();
    assert_eq!((s.sites[0].others(), s.sites[0].mix()), (&["B".to_string(), "C".to_string()][..], &[][..]));
    assert_eq!(s.sites[1].weights(), [60, 40]);
    let printed = dsl::print(&s);
    assert!(printed.contains("site even = A.m, B.m, C.m\n") && printed.contains("site mixed = C.m, A.m mix 60/40\n"), "{printed}");
    assert_eq!(dsl::parse(&printed).unwrap(), s);
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains(r#""others":["A"],"mix":[60,40]"#), "{json}");
    assert_eq!(dsl::from_json(&json).unwrap(), s);
    // A monomorphic site's JSON is what it was before polymorphic sites existed.
    let mono = dsl::parse("class A { m }\nsite s = A.m\nop { loop 1 { call s } }").unwrap();
    assert!(serde_json::to_string(&mono).unwrap().contains(r#""sites":[{"name":"s","class":"A","method":"m"}]"#));
}

#[test]
fn json_errors_name_the_place() {
    let e = dsl::from_json(
        r#"{"classes":[{"name":"A","methods":["m"]},{"name":"B"}],"sites":[{"name":"s","class":"A","method":"m","others":["B"],"mix":[1,0]}],"op":[]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("sites[0].mix[1]: a mix weight is at least 1"), "{e}");
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
