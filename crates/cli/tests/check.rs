//! `blast check`: every expectation evaluated, failures with `line:col`, expected,
//! observed and causes; exit 1 on any failure; JUnit XML and JSON for CI.

use blast_cli::main_with_args;

mod support;
use support::{temp_file, TempFile};

const SCENARIO: &str = "scenario \"unrelated churn, two expectations\"
class Hot { compute }
class Unrelated
site hot = Hot.compute
setup { remove Hot remove Unrelated }
op { loop 100000 { every 1000 { write Unrelated.dyn0 } call hot } }

# exact scopes the write to Unrelated: the hot site stays linked (passes)
expect under exact: write Unrelated.* relinks none of [hot]
# global retires everything on every write (fails: what GROOVY-12191 fixed)
expect under global: write Unrelated.* relinks none of [hot]
";

fn run(args: &[&str]) -> blast_cli::Output {
    main_with_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn scenario_file(name: &str, text: &str) -> TempFile {
    temp_file(name, text)
}

#[test]
fn one_pass_one_fail_exits_1_and_prints_the_failure_with_its_place_and_cause() {
    let file = scenario_file("two.blast", SCENARIO);
    let out = run(&["check", &file]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], format!("pass {file}:9:1: expect under exact: write Unrelated.* relinks none of [hot]"));
    assert_eq!(lines[1], format!("FAIL {file}:11:1: expect under global: write Unrelated.* relinks none of [hot]"));
    assert_eq!(lines[2], "       expected: none of [hot] relinked by `write Unrelated.*` under global");
    assert_eq!(lines[3], "       observed: under global the matching events relinked hot (799)");
    // Events 0 and 1 are the setup's removes, event 2 the write before the first call.
    assert_eq!(lines[4], "       caused by: `write Unrelated.dyn0` (event 3) relinked hot (collateral) under global, warm-up op 0, t = 0.8331 ms");
    assert_eq!(lines.last().unwrap(), &"2 expectation(s) in 1 scenario(s): 1 passed, 1 failed");
    assert_eq!(out.stderr, format!("check FAILED: 1 expectation(s) at {file}:11:1\n"));
}

#[test]
fn junit_has_one_case_per_expectation_and_a_failure_element_for_the_failing_one() {
    let file = scenario_file("junit.blast", SCENARIO);
    let out = run(&["check", &file, "--format", "junit"]);
    assert_eq!(out.code, 1);
    let xml = out.stdout;
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"blast check\" tests=\"2\" failures=\"1\">"), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 2);
    assert_eq!(xml.matches("<failure ").count(), 1);
    assert!(xml.contains(&format!("name=\"{file}:11:1: expect under global: write Unrelated.* relinks none of [hot]\" file=\"{file}\" line=\"11\">")), "{xml}");
    assert!(xml.contains(
        "message=\"expected none of [hot] relinked by `write Unrelated.*` under global; observed under global the matching events relinked hot (799)\""
    ));
    assert!(xml.trim_end().ends_with("</testsuites>"));
}

#[test]
fn json_reports_status_expected_observed_and_causes() {
    let file = scenario_file("report.blast", SCENARIO);
    let out = run(&["check", &file, "--format", "json"]);
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64()), (Some(1), Some(1)));
    let e = &v["scenarios"][0]["expectations"];
    assert_eq!(e[0]["status"], "pass");
    assert_eq!(e[1]["status"], "fail");
    assert_eq!((e[1]["line"].as_u64(), e[1]["col"].as_u64()), (Some(11), Some(1)));
    assert_eq!(e[1]["observed"][0]["sites"][0][0], "hot");
    assert_eq!(e[1]["causes"][0]["event_label"], "write Unrelated.dyn0");
    assert_eq!(e[1]["causes"][0]["verdict"], "collateral");
}

#[test]
fn every_preset_passes_and_several_targets_are_checked_together() {
    let out = run(&["check", "all"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("FAIL"));
    let passing = scenario_file(
        "pass.blast",
        &SCENARIO.replace("expect under global: write Unrelated.* relinks none of [hot]", "expect under global: write Unrelated.* relinks [hot]"),
    );
    let out = run(&["check", "hotLoop_baseline", &passing]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.ends_with("4 expectation(s) in 2 scenario(s): 4 passed, 0 failed\n"), "{}", out.stdout);
}

#[test]
fn a_scenario_without_expectations_is_still_just_validated() {
    let file = scenario_file("plain.blast", "class A { m }\nsite s = A.m\nop { loop 10 { call s } }\n");
    let out = run(&["check", &file]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, format!("{file}: ok (valid; no expectations)\n0 expectation(s) in 1 scenario(s): 0 passed, 0 failed\n"));
    // A malformed expectation is a scenario error: exit 1 with its line:col.
    let bad = scenario_file("bad.blast", "class A { m }\nsite s = A.m\nop { loop 10 { call s } }\nexpect under exact: relinks at t == 0\n");
    let out = run(&["check", &bad]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, format!("error: {bad}:4:32: unknown site `t`\n"));
    assert_eq!(run(&["check"]).code, 2);
    assert_eq!(run(&["check", &file, "--format", "csv"]).code, 2);
}

#[test]
fn model_presets_are_checked_by_variant_and_fail_when_a_knob_breaks_their_claim() {
    let out = run(&["check", "all"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    for p in blast_engine::models::MODEL_PRESETS {
        assert!(out.stdout.contains(&format!("pass {}:1:1: expect ", p.id)), "{} not checked:\n{}", p.id, out.stdout);
    }
    // Ten shapes fit FIFO's ten entries: nothing is evicted, so "FIFO keeps rebuilding" fails.
    let out = run(&["check", "records_rotating11", "--param", "shapes=10"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.starts_with("FAIL records_rotating11:1:1: expect under fifo, lru: collateral > 0\n       expected: collateral > 0 under fifo, lru\n       observed: fifo: collateral 0\n"), "{}", out.stdout);
    assert_eq!(out.stderr, "check FAILED: 2 expectation(s) at records_rotating11:1:1, records_rotating11:3:1\n");
}
