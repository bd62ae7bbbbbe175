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
        (
            "class A {\n  m\nop { loop 1 { } }",
            "1:9: the `{` opened at 1:9 is not closed: `op` at 3:1 was read as part of the block, then `{` at 3:4 does not fit",
        ),
        ("class A extends B\nop { loop 1 { } }", "1:17: class `A` extends unknown class `B`"),
        ("class A extends B\nclass B extends A\nop { loop 1 { } }", "1:17: cyclic hierarchy of 2 classes: A -> B -> A"),
        ("class A { m }\nsite s = Z.m\nop { loop 1 { call s } }", "2:10: site `s` calls on unknown class `Z`"),
        ("class A { m }\nsite s = A.m\nop {\n  loop 10 { call t }\n}", "4:18: unknown site `t`"),
        ("op { loop 99999999999999999999999 { } }", "1:11: number `99999999999999999999999` is too large"),
        ("op { loop 0 { } }", "1:11: a loop runs at least once and at most 1000000000000 times (found 0)"),
        ("class A { m }\nsite s = A.m\nop { call s }", "3:6: `call` belongs directly inside a `loop`"),
        ("class A\nop { loop 5 { every 0 { write A.x } } }", "2:21: the period must be at least 1 and at most 1000000000000 iterations (found 0)"),
        ("frobnicate", "1:1: unknown declaration `frobnicate`"),
        ("class A { m }\nop { loop 1 { } }\n@", "3:1: unexpected character `@`"),
        // Columns count chars: a comment, a string and Unicode whitespace before the error.
        ("# é ü\nscenario \"größe\" \u{a0}class A { m }\nop { loop 1 { } } ✗", "3:19: unexpected character `✗`"),
        ("scenario \"ü\" §", "1:14: unexpected character `§`"),
        ("scenario \"open\nclass A", "1:10: a string (`\"`) is not closed on its line"),
        ("op { loop 1_000_0000000000000000000 { } }", "1:11: number `1_000_0000000000000000000` is too large"),
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
    // The refusal names every term, largest first.
    assert!(
        e.to_string().contains("more than the 200,000,000 a run may take: 130,000,000,000,130,000 for 10,000,000,000,010,000 events in `op` over 10,000 ops"),
        "{e}"
    );
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

/// Preset `round` (the presets in turn) with 1 to 6 random edits: a character removed or
/// inserted, a run of digits inserted, up to 40 characters cut.
fn mangled(rng: &mut Rng, round: usize) -> String {
    let alphabet: Vec<char> = "{}=.;#\"\n 0123456789abcxyzAB_$-@é".chars().collect();
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
    chars.into_iter().collect()
}

#[test]
fn mangled_scenarios_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for round in 0..1500 {
        let text = mangled(&mut rng, round);
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

/// Mangled scenarios read a few bytes at a time by `dsl::Reading`, checked after each piece: a
/// refusal it decides before the end is the refusal of the whole text, at the same place.
#[test]
fn a_refusal_decided_while_reading_is_the_refusal_of_the_whole_text() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut early = 0;
    for round in 0..1500 {
        let text = mangled(&mut rng, round);
        let whole = dsl::parse_any(&text).err().map(|e| e.to_string());
        let mut reading = dsl::Reading::checking_every(1);
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let mut n = (1 + rng.below(40)).min(rest.len());
            while !rest.is_char_boundary(n) {
                n += 1;
            }
            if let Err(e) = reading.feed(&rest[..n]) {
                assert_eq!(Some(e.to_string()), whole, "refused while reading:\n{text}");
                early += 1;
                break;
            }
            rest = &rest[n..];
        }
        if rest.is_empty() {
            if let Err(e) = reading.finish() {
                assert_eq!(Some(e.to_string()), whole, "refused at the end of:\n{text}");
            }
        }
    }
    assert!(early > 1000, "most mangled texts are refused before their end ({early} of 1500)");
}

#[test]
fn a_byte_order_mark_is_accepted_and_invisible_characters_are_shown_escaped() {
    let text = "\u{feff}class A { m }\nsite s = A.m\nop { loop 1 { call s } }";
    assert_eq!(dsl::parse(text).unwrap().classes[0].name, "A");
    assert_eq!(error_of("class A { m }\nop { loop 1 { } }\u{feff}"), "2:18: unexpected character `\\u{feff}` (an invisible character)");
    assert_eq!(error_of("class A\0 { m }"), "1:8: unexpected character `\\0` (a NUL byte)");
    assert_eq!(error_of("class A \u{200b}"), "1:9: unexpected character `\\u{200b}` (an invisible character)");
}

#[test]
fn a_lone_carriage_return_breaks_a_line() {
    assert_eq!(error_of("class A { m }\rclass B\r\rop { loop 1 { call zz } }"), "4:20: unknown site `zz`");
    // CR LF counts once.
    assert_eq!(error_of("class A { m }\r\nop { loop 1 { call zz } }"), "2:20: unknown site `zz`");
}

#[test]
fn a_method_declared_twice_is_refused_at_the_second() {
    assert_eq!(error_of("class A { m n m }\nop { loop 1 { } }"), "1:15: class `A` declares method `m` twice");
    assert_eq!(error_of("class A\nsetup { load class B { x x } }\nop { loop 1 { } }"), "2:26: class `B` declares method `x` twice");
}

#[test]
fn loading_a_class_under_a_taken_name_names_the_clash() {
    assert_eq!(
        error_of("class A { m }\nsetup { load class A extends A { m } }\nop { loop 1 { } }"),
        "2:20: a class named `A` already exists; a loaded class needs a new name"
    );
    assert_eq!(error_of("setup { load class B extends B }\nop { loop 1 { } }"), "1:30: loaded class `B` cannot extend itself");
}

#[test]
fn a_long_cycle_is_named_by_its_first_ten_classes_and_its_length() {
    let n = 99_999;
    let mut text: String = (0..n).map(|i| format!("class K{i} extends K{}\n", (i + 1) % n)).collect();
    text.push_str("op { loop 1 { } }");
    let e = error_of(&text);
    assert_eq!(e, "1:18: cyclic hierarchy of 99999 classes: K0 -> K1 -> K2 -> K3 -> K4 -> K5 -> K6 -> K7 -> K8 -> K9 -> ... -> K0");
}

#[test]
fn bounds_are_said_in_plain_words() {
    assert_eq!(
        error_of("class A\nop { loop 5 { every 0 { write A.x } } }"),
        "2:21: the period must be at least 1 and at most 1000000000000 iterations (found 0)"
    );
    assert_eq!(error_of("class A\nop { repeat 0 { loop 1 { } } }"), "2:13: a repeat runs at least once and at most 1000000 times (found 0)");
    assert_eq!(error_of("measure ops 0\nclass A\nop { loop 1 { } }"), "1:1: measured ops must be at least 1 and at most 10000, warm-up ops at most 10000");
}

#[test]
fn an_unclosed_brace_is_named_where_it_opens() {
    let text = "class Shape { area }\n\
                class Square extends Shape { side }\n\
                class Tri extends Shape { base }\n\
                \n\
                class Circle extends Shape { radius\n\
                class Ellipse extends Shape { axes }\n\
                site c = Circle.area\n\
                op { loop 10 { call c } }\n";
    assert_eq!(error_of(text), "5:28: the `{` opened at 5:28 is not closed: `class` at 6:1 was read as part of the block, then `{` at 6:29 does not fit");
    assert_eq!(error_of("class A { m }\nsite s = A.m\nop { loop 10 { call s }\n"), "3:4: the `{` opened at 3:4 is not closed: the text ends first");
    assert_eq!(
        error_of("class A { m }\nsite s = A.m\nop { loop 10 { call s }\nsite t = A.m"),
        "3:4: the `{` opened at 3:4 is not closed: `site` at 4:1 starts a declaration"
    );
    assert_eq!(error_of("category C { A.m\n"), "1:12: the `{` opened at 1:12 is not closed: the text ends first");
}

#[test]
fn a_long_word_is_cut_in_an_error_with_its_length() {
    let word = "w".repeat(10_000_000);
    let e = error_of(&format!("class A {{ m }}\n{word}"));
    assert_eq!(e, format!("2:1: unknown declaration `{}...` (10000000 characters) (expected scenario, semantics, measure, class, category, site, setup, before-op, op or expect)", "w".repeat(80)));
    let e = error_of(&format!("scenario \"{word}\" \"{word}\""));
    assert_eq!(e, format!("1:10000013: expected a declaration, found string \"{}...\" (10000000 characters)", "w".repeat(80)));
    let e = error_of(&format!("class {word}\nop {{ loop 1 {{ }} }}"));
    assert!(e.starts_with("1:7: class `www") && e.contains("...` (10000000 characters) is not a valid name") && e.len() < 300, "{}", &e[..300.min(e.len())]);
}

#[test]
fn json_after_a_byte_order_mark_is_read_as_json() {
    let s = dsl::parse("class A { m }\nsite s = A.m\nop { loop 1 { call s } }").unwrap();
    let json = format!("\u{feff}{}", serde_json::to_string(&s).unwrap());
    assert_eq!(dsl::parse_any(&json).unwrap(), s);
}

#[test]
fn json_nested_past_the_reader_depth_limit_is_refused_with_its_place() {
    // serde_json stops at 128 levels of arrays and objects (its default limit, kept on).
    let levels = 100_000;
    let mut json = String::from(r#"{"op":["#);
    for _ in 0..levels {
        json.push_str(r#"{"stmt":"repeat","count":1,"body":["#);
    }
    json.push_str(&"]}".repeat(levels));
    json.push_str("]}");
    let e = dsl::from_json(&json).unwrap_err().to_string();
    assert!(e.starts_with("1:") && e.contains("recursion limit exceeded"), "{e}");
}

#[test]
fn validation_errors_in_later_elements_of_a_list_are_placed_at_their_own_text() {
    // The second read that places an error keeps nothing: the paths count the elements a kept
    // list would hold (the second category, the third call, the third setup event).
    for (text, error) in [
        (
            "class A { m n }\nsite s = A.m\ncategory c0 { A.m }\ncategory c1 { A.n Q.m }\nop { loop 1 { call s } }\n",
            "4:19: category `c1` names unknown class `Q`",
        ),
        ("class A { m }\nsite s = A.m\nop { loop 1 { call s call s call t } }\n", "3:34: unknown site `t`"),
        (
            "class A { m }\nsite s = A.m\nsetup { write A.m write A.m load class B extends Q { m } }\nop { loop 1 { call s } }\n",
            "3:50: loaded class `B` extends unknown class `Q`",
        ),
    ] {
        assert_eq!(dsl::parse(text).unwrap_err().to_string(), error, "{text}");
    }
}

#[test]
fn expectations_are_placed_by_the_read_that_keeps_nothing_where_a_full_read_places_them() {
    let mut placed = 0;
    for p in presets::all() {
        let (_, every) = dsl::parse_unchecked(p.text).expect("a preset parses");
        let mut wanted: Vec<_> = every.into_iter().filter(|(path, _)| path.starts_with("expectations[")).collect();
        let mut found: Vec<_> = dsl::expectation_places(p.text).expect("places").into_iter().collect();
        wanted.sort();
        found.sort();
        assert_eq!(found, wanted, "{}", p.id);
        placed += found.len();
    }
    assert!(placed > 20, "the presets' expectations were placed: {placed}");
}
