//! Refusals cost little at any input size: the parser counts nesting and declarations as it
//! reads, stops at the first one past a cap, places the error there, and reads no further.
//!
//! Two counts, not timings: each text ends in a character the lexer refuses (`@`), a few tokens
//! after the place of the refusal (the parser looks two tokens ahead), so a refusal placed before
//! it proves the rest was never read; and the counting allocator bounds the heap it took.

// Its own test binary (the allocator is the process's); native only.
#![cfg(not(target_arch = "wasm32"))]

mod counting;

use blast_engine::dsl;
use counting::peak_during;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const MB: usize = 1 << 20;

/// The error `text` is refused with, and the heap bytes its parse took at the peak.
fn refusal(text: &str) -> (String, usize) {
    let mut error = String::new();
    let peak = peak_during(|| error = dsl::parse(text).expect_err("must be refused").to_string());
    (error, peak)
}

/// `op { repeat 1 { repeat 1 { ...` `levels` deep, never closed, then `@`.
fn nested(keyword: &str, levels: usize) -> String {
    let mut t = String::from("class A { m }\nsite s = A.m\nop { ");
    for _ in 0..levels {
        t.push_str(keyword);
        t.push_str(" { ");
    }
    t.push('@');
    t
}

#[test]
fn nesting_is_refused_at_level_33_before_the_deeper_levels_are_read() {
    let _alone = counting::alone();
    for (keyword, width) in [("repeat 1", 11), ("use C", 8)] {
        for levels in [20_000, 1_000_000] {
            let text = nested(keyword, levels);
            let (error, peak) = refusal(&text);
            // The 33rd `repeat`: after `op { ` (5 columns) and 32 levels.
            let col = 6 + 32 * width;
            assert_eq!(error, format!("3:{col}: blocks nest at most 32 deep; this one would be level 33"), "{keyword} x {levels}");
            assert!(peak < MB, "{keyword} x {levels}: {peak} bytes at the peak");
        }
    }
}

#[test]
fn nesting_inside_a_loop_is_refused_the_same_way() {
    let _alone = counting::alone();
    let mut text = String::from("class A { m }\nsite s = A.m\nop { loop 10 { ");
    for _ in 0..50_000 {
        text.push_str("every 2 { ");
    }
    text.push('@');
    let (error, peak) = refusal(&text);
    // `loop 10 { ` is level 1; the 32nd `every` opens level 33.
    assert_eq!(error, format!("3:{}: blocks nest at most 32 deep; this one would be level 33", 16 + 31 * 10));
    assert!(peak < MB, "{peak} bytes at the peak");
}

#[test]
fn a_scenario_nested_deeper_than_the_limit_by_hand_is_refused_by_validation_without_recursion() {
    let _alone = counting::alone();
    use blast_engine::scenario::{Scenario, Stmt};
    // A million levels built in code (as an API user or a JSON reader without a depth limit
    // could): validation walks it with an explicit stack and refuses it.
    let mut body = vec![Stmt::event(blast_engine::Event::Unattributed)];
    for _ in 0..1_000_000 {
        body = vec![Stmt::repeat(1, body)];
    }
    let s = Scenario { op: body, ..Scenario::default() };
    let e = blast_engine::validate::validate(&s).unwrap_err().to_string();
    assert!(e.starts_with("op[0]") && e.ends_with("blocks nest at most 32 deep; this one would be level 33"), "{}", &e[..e.len().min(300)]);
    // Dropping it recurses once per level; a thread with room for that does it.
    std::thread::Builder::new().stack_size(1 << 30).spawn(move || drop(s)).unwrap().join().unwrap();
}

#[test]
fn caps_are_refused_at_the_first_declaration_past_them() {
    let _alone = counting::alone();
    let cases: Vec<(String, String, usize)> = vec![
        // classes: the 100,001st is on line 100,001.
        (
            (0..100_001).map(|i| format!("class K{i}\n")).collect::<String>() + "x y z\n@",
            "100001:1: at most 100,000 classes; this is number 100,001".into(),
            40 * MB,
        ),
        // methods of one class: the 10,001st.
        (
            format!("class A {{{}\nx y z\n@", (0..10_001).map(|i| format!("\nm{i}")).collect::<String>()),
            "10002:1: at most 10,000 methods per class; this is number 10,001".into(),
            4 * MB,
        ),
        // receivers of one site: the 65th.
        (
            format!(
                "{}site s = C0.m{}",
                (0..65).map(|i| format!("class C{i} {{ m }}\n")).collect::<String>(),
                (1..65).map(|i| format!(",\nC{i}.m")).collect::<String>()
            ) + " x y z\n@",
            "130:1: at most 64 receiver classes per site; this is number 65".into(),
            MB,
        ),
        // receivers over all polymorphic sites: 125,000 bimorphic sites are 250,000.
        (
            format!("class A {{ m }}\nclass B {{ m }}\n{}x y z\n@", (0..125_001).map(|i| format!("site s{i} = A.m,\nB.m\n")).collect::<String>()),
            "250004:1: at most 250,000 receiver classes over all polymorphic sites".into(),
            40 * MB,
        ),
        // sites in one expectation's list: the 1,001st.
        (
            format!("class A {{ m }}\nsite s = A.m\nop {{ loop 1 {{ call s }} }}\nexpect under exact: write A.* relinks [s{}\nx y z\n@", ",\ns".repeat(1_000)),
            "1004:1: at most 1,000 sites in one expectation's list; this is number 1,001".into(),
            MB,
        ),
        // event statements in all blocks: the 100,001st.
        (
            format!("class A {{ m }}\nsetup {{{}\nx y z\n@", (0..100_001).map(|_| "\nwrite A.m").collect::<String>()),
            "100003:1: at most 100,000 event statements; this is number 100,001".into(),
            40 * MB,
        ),
    ];
    for (text, want, bound) in cases {
        let (error, peak) = refusal(&text);
        assert_eq!(error, want);
        assert!(peak < bound, "{want}: {peak} bytes at the peak");
    }
}

/// `head`, then `n` lines `site sI = A.m`.
fn sites_after(head: &str, n: usize) -> String {
    let mut text = String::from(head);
    for i in 0..n {
        text.push_str(&format!("site s{i} = A.m\n"));
    }
    text
}

#[test]
fn the_site_cap_is_refused_at_the_first_site_past_it() {
    let _alone = counting::alone();
    let text = sites_after("class A { m }\n", 1_000_001) + "x y z\n@";
    let (error, peak) = refusal(&text);
    assert_eq!(error, "1000002:1: at most 1,000,000 sites; this is number 1,000,001");
    // Found by a parse that counts the sites without building them.
    assert!(peak < MB, "{peak} bytes at the peak");
    // Written as tightly as the grammar allows, on one line: the same place, the same cost.
    let mut text = String::from("class A { m }\n");
    for i in 0..1_000_001 {
        text.push_str(&format!("site s{i}=A.m "));
    }
    let last = text.len() - "site s1000000=A.m ".len();
    text.push_str("x y z\n@");
    let (error, peak) = refusal(&text);
    assert_eq!(error, format!("2:{}: at most 1,000,000 sites; this is number 1,000,001", last - "class A { m }\n".len() + 1));
    assert!(peak < MB, "{peak} bytes at the peak");
}

#[test]
fn past_the_site_cap_an_earlier_error_is_still_the_first_refusal() {
    let _alone = counting::alone();
    let text = sites_after("class A { m }\nclass B extends\n", 1_000_001);
    let (error, peak) = refusal(&text);
    // `site` is read as the parent's name; the next word is the first refusal.
    assert!(error.starts_with("3:6: unknown declaration `s0`"), "{error}");
    assert!(peak < MB, "{peak} bytes at the peak");
}

/// `text` read by [`dsl::Reading`] 64 KiB at a time: its refusal, the bytes read up to it, and
/// the heap the reading took at the peak (the text itself is the caller's).
fn refusal_while_reading(text: &str) -> (String, usize, usize) {
    let (mut error, mut read) = (String::new(), 0);
    let peak = peak_during(|| {
        let mut reading = dsl::Reading::new();
        for piece in text.as_bytes().chunks(64 * 1024) {
            read += piece.len();
            if let Err(e) = reading.feed(std::str::from_utf8(piece).expect("ASCII")) {
                error = e.to_string();
                return;
            }
        }
        error = reading.finish().err().map(|e| e.to_string()).unwrap_or_default();
    });
    (error, read, peak)
}

#[test]
fn a_text_read_a_piece_at_a_time_is_refused_past_a_cap_holding_one_declaration() {
    let _alone = counting::alone();
    // 3.1 M classes (64 MB as a file): refused at the 100,001st, about 1.9 MB in.
    let classes: String = (0..3_100_000).map(|i| format!("class K{i} {{ m }}\n")).collect();
    let (error, read, peak) = refusal_while_reading(&classes);
    assert_eq!(error, "100001:1: at most 100,000 classes; this is number 100,001");
    assert!(read < 3 * MB, "{read} bytes read");
    assert!(peak < MB, "{peak} bytes at the peak");
    // 100,001 classes: the last is past the cap, refused when the text ends, not built first.
    let (error, read, peak) = refusal_while_reading(&classes[..classes.find("class K100001 ").unwrap()]);
    assert_eq!(error, "100001:1: at most 100,000 classes; this is number 100,001");
    assert!(read < 2 * MB, "{read} bytes read");
    assert!(peak < MB, "{peak} bytes at the peak");
    // One class of 7.2 M methods on one line: refused at the 10,001st method.
    let methods = format!("class A {{{} }}\nop {{ }}\n", " m".repeat(7_200_000));
    let (error, read, peak) = refusal_while_reading(&methods);
    assert_eq!(error, "1:20011: at most 10,000 methods per class; this is number 10,001");
    assert!(read <= 64 * 1024, "{read} bytes read");
    assert!(peak < MB, "{peak} bytes at the peak");
    // 6 M events in one `setup` block: the block is re-read as it grows, at most twice its size.
    let events = format!("class A {{ m }}\nsetup {{{}\n}}\n", "\nwrite A.m".repeat(6_000_000));
    let (error, read, peak) = refusal_while_reading(&events);
    assert_eq!(error, "100003:1: at most 100,000 event statements; this is number 100,001");
    assert!(read < 3 * MB, "{read} bytes read");
    assert!(peak < 4 * MB, "{peak} bytes at the peak");
    // 20 MB of comments, then a character the lexer refuses: the comments are not held.
    let comments = "# c\n".repeat(5_000_000) + "class A @ { m }\n" + &"# c\n".repeat(100_000);
    let (error, read, peak) = refusal_while_reading(&comments);
    assert_eq!(error, "5000001:9: unexpected character `@`");
    assert!(read < 21 * MB, "{read} bytes read");
    assert!(peak < MB, "{peak} bytes at the peak");
    // Past the site cap: counted, never built.
    let sites = sites_after("class A { m }\n", 1_100_000);
    let (error, read, peak) = refusal_while_reading(&sites);
    assert_eq!(error, "1000002:1: at most 1,000,000 sites; this is number 1,000,001");
    assert!(read < 19 * MB, "{read} bytes read");
    assert!(peak < MB, "{peak} bytes at the peak");
}

#[test]
fn a_validation_refusal_is_placed_without_a_map_of_every_path() {
    let _alone = counting::alone();
    // A cycle through 99,999 classes: validation refuses it, and the second parse, which
    // places the error, records the places of that one path only.
    let n = 99_999;
    let mut text: String = (0..n).map(|i| format!("class K{i} extends K{}\n", (i + 1) % n)).collect();
    text.push_str("op { loop 1 { } }");
    let (error, peak) = refusal(&text);
    assert!(error.starts_with("1:18: cyclic hierarchy of 99999 classes: K0 -> K1"), "{error}");
    println!("peak heap refusing a 99,999-class cycle: {} MB", peak / MB);
    assert!(peak < 32 * MB, "{peak} bytes at the peak");
}

#[test]
fn classes_of_ten_thousand_costed_methods_round_trip_and_run() {
    let _alone = counting::alone();
    // 50 classes of 10^4 costed methods: validation, printing and the body table compared
    // costs with methods pairwise, 10^10 comparisons here; now through sets and maps.
    let mut text = String::new();
    for k in 0..50 {
        text.push_str(&format!("class K{k} {{"));
        for i in 0..10_000 {
            text.push_str(&format!(" m{i} cost 5 ns"));
        }
        text.push_str(" }\n");
    }
    text.push_str("site s = K0.m9999\nop { loop 10 { call s } }\n");
    let s = dsl::parse(&text).unwrap();
    assert_eq!(s.classes[49].costs.len(), 10_000);
    assert_eq!(dsl::parse(&dsl::print(&s)).unwrap(), s);
    let r = blast_engine::run(&s, blast_engine::Policy::Exact, &blast_engine::Params::default()).unwrap();
    assert_eq!(r.site("s").unwrap().stats.fast_calls + r.site("s").unwrap().stats.pic_calls + r.site("s").unwrap().stats.fallback_calls, 80);
}

/// `text` as it reads through `Read`, counting the bytes handed out.
struct Metered<'a> {
    text: &'a [u8],
    given: usize,
}

impl std::io::Read for Metered<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.text.len() - self.given);
        buf[..n].copy_from_slice(&self.text[self.given..n + self.given]);
        self.given += n;
        Ok(n)
    }
}

#[test]
fn json_past_a_cap_is_refused_at_the_first_element_past_it_reading_up_to_there() {
    let _alone = counting::alone();
    let lines = |n: usize, line: &dyn Fn(usize) -> String| (0..n).map(line).collect::<Vec<_>>().join(",\n");
    let cases = [
        (
            format!("{{\"classes\": [\n{}]}}", lines(1_000_000, &|i| format!("{{\"name\": \"K{i}\"}}"))),
            "100002:2: classes[100000]: at most 100,000 classes; this is number 100,001",
            ("\"K100000\"", 0),
        ),
        (
            format!(
                "{{\"classes\": [{{\"name\": \"A\", \"methods\": [\"m\"]}}], \"sites\": [\n{}]}}",
                lines(1_200_000, &|i| format!("{{\"name\": \"s{i}\", \"class\": \"A\", \"method\": \"m\"}}"))
            ),
            "1000002:2: sites[1000000]: at most 1,000,000 sites; this is number 1,000,001",
            ("\"s1000000\"", 0),
        ),
        (
            format!("{{\"classes\": [{{\"name\": \"A\", \"methods\": [{}]}}]}}", lines(200_000, &|i| format!("\"m{i}\""))),
            "10001:8: classes[0].methods[10000]: at most 10,000 methods per class; this is number 10,001",
            ("\"m10000\"", 0),
        ),
        (
            format!(
                "{{\"setup\": [{{\"stmt\": \"loop\", \"count\": 1, \"body\": [\n{}]}}]}}",
                lines(500_000, &|_| "{\"stmt\": \"event\", \"event\": \"write\", \"class\": \"A\", \"method\": \"m\"}".into())
            ),
            "100002:16: setup[0].body[100000].stmt: at most 100,000 event statements; this is number 100,001",
            ("{\"stmt\": \"event\"", 100_000),
        ),
    ];
    for (text, want, (element, nth)) in &cases {
        // The first element past the cap begins here; the reader reads 64 KiB at a time.
        let at = text.match_indices(element).nth(*nth).expect("the element past the cap").0;
        let (mut error, mut read) = (String::new(), 0);
        let peak = peak_during(|| {
            let mut r = Metered { text: text.as_bytes(), given: 0 };
            error = dsl::refuse_json_past_caps(&mut r).expect_err("past a cap").to_string();
            read = r.given;
        });
        assert_eq!(&error, want);
        assert!(read <= at + 64 * 1024, "{want}: {read} bytes read, the element at {at}");
        assert!(peak < MB, "{want}: {peak} bytes at the peak");
        // The whole text is refused the same way, before anything is built.
        let peak = peak_during(|| error = dsl::parse_any(text).expect_err("past a cap").to_string());
        assert_eq!(&error, want);
        assert!(peak < MB, "{want}: {peak} bytes at the peak parsing the whole text");
    }
}
