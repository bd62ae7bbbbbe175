//! Inputs are read within their caps and decoded strictly: a file past the cap, an endless
//! device, text that is not UTF-8 and a JSON field nobody reads are each refused with the file,
//! the cap or the place; `sweep` takes a bounded number of values.

use blast_cli::{main_with_args, MAX_SWEEP_VALUES};

mod support;
use support::{temp_file, TempFile};

fn blast(args: &[&str]) -> blast_cli::Output {
    main_with_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn file(name: &str, bytes: &[u8]) -> TempFile {
    temp_file(name, bytes)
}

#[test]
fn an_endless_device_of_zeros_is_refused_at_its_first_byte_naming_the_file() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let out = blast(&["run", "/dev/zero"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "error: /dev/zero: not text: a NUL byte at offset 0 (1:1)\n");
}

/// `run`, `show` and `check` of the file `path` each exit 1 with `error: PATH` then `after`
/// (`: message`, or `:line:col: message` for a parse error).
fn refused_by_every_command(path: &str, after: &str) {
    for cmd in ["run", "show", "check"] {
        let out = blast(&[cmd, path]);
        assert_eq!(out.code, 1, "{cmd}");
        assert_eq!(out.stderr, format!("error: {path}{after}\n"), "{cmd}");
    }
}

#[test]
fn a_nul_byte_in_a_scenario_is_refused_with_its_place_by_every_command() {
    let path = file("nul.blast", b"class A\0 { m }\n");
    refused_by_every_command(&path, ": not text: a NUL byte at offset 7 (1:8)");
}

#[test]
fn a_file_past_a_cap_is_refused_while_it_is_read_with_its_parse_error_by_every_command() {
    // 120,000 classes: the parser refuses the 100,001st while the file is read, 1.9 MB in.
    let text: String = (0..120_000).map(|i| format!("class K{i} {{ m }}\n")).collect();
    let path = file("classes.blast", text.as_bytes());
    let whole = blast_engine::dsl::parse_any(&text).unwrap_err().to_string();
    assert_eq!(whole, "100001:1: at most 100,000 classes; this is number 100,001");
    // Placed as a parse error is: `PATH:line:col: ...`.
    refused_by_every_command(&path, &format!(":{whole}"));
}

#[test]
fn json_past_a_cap_is_refused_while_it_is_read_with_the_error_of_the_whole_text_by_every_command() {
    // After a byte-order mark, as an editor may write it: 120,000 classes, refused at the
    // 100,001st by the walk that counts them, with the words and place `parse_any` gives.
    let classes: Vec<String> = (0..120_000).map(|i| format!("{{\"name\": \"K{i}\"}}")).collect();
    let text = format!("\u{feff}{{\"classes\": [\n{}]}}", classes.join(",\n"));
    let path = file("classes.json", text.as_bytes());
    let whole = blast_engine::dsl::parse_any(&text).unwrap_err().to_string();
    assert_eq!(whole, "100002:2: classes[100000]: at most 100,000 classes; this is number 100,001");
    refused_by_every_command(&path, &format!(":{whole}"));
}

/// `blast ARGS` with `input` on its standard input: its exit code and standard error.
fn piped(args: &[&str], input: &[u8]) -> (i32, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_blast")).args(args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The reader may stop before the end (a refusal): a broken pipe then is expected.
    let _ = stdin.write_all(input);
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_scenario_through_a_pipe_is_read_once_and_refused_or_accepted_as_a_file_is() {
    if !std::path::Path::new("/dev/stdin").exists() {
        return;
    }
    let scenario = "# c\n".repeat(200_000) + "class A { m }\nsite s = A.m\nop { loop 2 { call s } }\n";
    assert_eq!(piped(&["show", "/dev/stdin"], scenario.as_bytes()), (0, String::new()));
    let classes: Vec<String> = (0..120_000).map(|i| format!("{{\"name\": \"K{i}\"}}")).collect();
    let json = format!("{{\"classes\": [\n{}]}}", classes.join(",\n"));
    let (code, stderr) = piped(&["run", "/dev/stdin"], json.as_bytes());
    assert_eq!((code, stderr.as_str()), (1, "error: /dev/stdin:100002:2: classes[100000]: at most 100,000 classes; this is number 100,001\n"));
}

#[test]
fn a_file_that_is_not_utf8_is_placed_at_its_byte_offset() {
    let path = file("latin1.blast", b"class A { m }\nsite s = A.m \xe9\n");
    refused_by_every_command(&path, ": not UTF-8 text: invalid byte at offset 27 (2:14)");
    let probe = blast(&["fingerprint", &path]);
    assert!(probe.stderr.contains("offset 27"), "{}", probe.stderr);
}

#[test]
fn an_unknown_json_field_is_refused_with_its_path() {
    let path = file("typo.json", br#"{"classes": [{"name": "A", "methods": ["m"]}, {"name": "B", "parnet": "A"}]}"#);
    let out = blast(&["run", &path]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("classes[1]: unknown field `parnet`, expected one of `name`, `parent`"), "{}", out.stderr);
}

#[test]
fn every_preset_round_trips_through_strict_json() {
    for p in blast_engine::presets::all() {
        let json = blast(&["show", p.id, "--format", "json"]);
        assert_eq!(json.code, 0, "{}: {}", p.id, json.stderr);
        let path = file(&format!("{}.json", p.id), json.stdout.as_bytes());
        let back = blast(&["show", &path]);
        assert_eq!((back.code, back.stderr.as_str()), (0, ""), "{}", p.id);
    }
}

#[test]
fn a_sweep_past_its_cap_is_refused_before_anything_runs() {
    let values: Vec<String> = (1..=MAX_SWEEP_VALUES + 1).map(|v| v.to_string()).collect();
    let param = format!("churn_every={}", values.join(","));
    let out = blast(&["sweep", "hotLoop_unrelatedMetaClassChurn", "--param", &param]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, format!("error: sweep got {} values; it runs at most {MAX_SWEEP_VALUES} (split the sweep)\n", MAX_SWEEP_VALUES + 1));
}

#[test]
fn a_probe_result_with_an_impossible_time_is_refused_with_its_row_and_prints_no_nan() {
    let kept = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../probes/results/cpython.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&kept).unwrap();
    v["rows"][1]["min_ns"] = serde_json::json!(1e308);
    let path = file("huge.json", v.to_string().as_bytes());
    let out = blast(&["fingerprint", &path]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("rows[1]") && !out.stdout.contains("NaN"), "{}{}", out.stdout, out.stderr);
}
