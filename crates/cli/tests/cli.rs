//! The `blast` command line: acceptance checks from the foundation and fidelity issues.

use std::process::Command;

use blast_cli::{calibration_markdown, main_with_args};
use blast_engine::calibrate::calibrate;
use blast_engine::params::Param;
use blast_engine::sweep::Knob;
use blast_engine::Params;

fn blast(args: &[&str]) -> blast_cli::Output {
    main_with_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

/// ops/ms per (scenario, policy) from `--format csv`.
fn csv_ops(out: &str) -> Vec<(String, String, f64)> {
    out.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn exact_is_far_above_global_on_unrelated_churn_and_equal_on_the_baseline() {
    let out = blast(&["run", "all", "--policy", "global,exact", "--format", "csv"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = csv_ops(&out.stdout);
    let get = |scenario: &str, policy: &str| rows.iter().find(|r| r.0 == scenario && r.1 == policy).unwrap().2;
    let churn = get("hotLoop_unrelatedMetaClassChurn", "exact") / get("hotLoop_unrelatedMetaClassChurn", "global");
    assert!(churn >= 10.0, "exact/global on unrelated churn = {churn}");
    let base = get("hotLoop_baseline", "exact") / get("hotLoop_baseline", "global");
    assert!((0.8..=1.2).contains(&base), "baseline ratio {base}");
}

#[test]
fn the_table_format_shows_ratios_and_relinks_by_class() {
    let out = blast(&["run", "hotLoop_unrelatedMetaClassChurn", "--policy", "global,exact"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("exact/global"), "{}", out.stdout);
    let row = out.stdout.lines().find(|l| l.starts_with("hotLoop_unrelatedMetaClassChurn")).unwrap();
    let ratio: f64 = row.split_whitespace().last().unwrap().trim_end_matches('x').parse().unwrap();
    assert!(ratio > 100.0, "{row}");
    // Global relinks the hot site and the harness; exact relinks nothing.
    assert!(out.stdout.contains("Hot "), "{}", out.stdout);
}

#[test]
fn json_output_is_valid_json() {
    let out = blast(&["run", "parentChild_baseline", "--policy", "exact,ideal", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[0]["runs"].as_array().unwrap().len(), 2);
    assert_eq!(v[0]["runs"][1]["policy"], "ideal");
}

#[test]
fn a_malformed_scenario_prints_line_and_column_and_exits_non_zero() {
    let dir = std::env::temp_dir().join(format!("blast-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.blast");
    std::fs::write(&file, "class A { m }\nsite s = A.m\nop { loop 10 { call nope } }\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_blast")).args(["run", file.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.blast:3:21: unknown site `nope`"), "{err}");
    std::fs::write(&file, "class A extends B\nclass B extends A\nop { loop 1 { } }").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_blast")).args(["check", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(":1:17: cyclic hierarchy"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_reported_not_panicked() {
    // Mistakes in the command line exit 2, bad inputs and refused runs exit 1.
    for (args, code) in [
        (vec!["run"], 2),
        (vec!["run", "hotLoop_baseline", "--policy", "bogus"], 2),
        (vec!["run", "hotLoop_baseline", "--format", "markdown"], 2),
        (vec!["show", "hotLoop_baseline", "--format", "csv"], 2),
        (vec!["run", "records_length100", "--format", "dsl"], 2),
        (vec!["frobnicate"], 2),
        (vec![], 2),
        (vec!["run", "hotLoop_baseline", "--param", "selection_ns=-4"], 1),
        (vec!["run", "hotLoop_baseline", "--param", "nonsense=1"], 1),
        (vec!["sweep", "hotLoop_baseline", "--param", "churn_every=1,2"], 1),
        (vec!["run", "/definitely/not/here.blast"], 1),
        (vec!["run", "records_length100", "--policy", "nope"], 1),
    ] {
        let out = blast(&args);
        assert_eq!(out.code, code, "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("error: "), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn help_lists_every_parameter_with_its_default() {
    let help = blast(&["help"]).stdout;
    let defaults = Params::default();
    for p in Param::ALL {
        let line = help.lines().find(|l| l.trim_start().starts_with(p.name())).unwrap_or_else(|| panic!("{p} missing from help"));
        assert!(line.contains(&format!("[{}]", defaults.get(p))), "{line}");
        assert!(line.contains(p.meaning()), "{line}");
    }
    for knob in Knob::SCENARIO {
        assert!(help.contains(knob.name()), "{} missing from help", knob.name());
    }
}

#[test]
fn model_presets_print_every_run_format() {
    let csv = blast(&["run", "descriptor_treeMap", "--format", "csv"]);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    let lines: Vec<&str> = csv.stdout.lines().collect();
    assert!(lines[0].starts_with("variant,value,unit"), "{}", lines[0]);
    assert_eq!(lines.len(), 4, "a header and one line per variant (good, broken, fixed)");
    let json = blast(&["run", "descriptor_treeMap", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    let sweep = blast(&["sweep", "records_rotating11", "--param", "shapes=5,20", "--policy", "fifo", "--format", "csv"]);
    assert_eq!(sweep.code, 0, "{}", sweep.stderr);
    assert_eq!(sweep.stdout.lines().count(), 3, "{}", sweep.stdout);
}

#[test]
fn calibrate_passes_and_reports_every_row() {
    let out = blast(&["calibrate"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for id in ["hotLoop_baseline", "hotLoop_sameTypeMetaClassChurn", "parentChild_parentMetaClassChurn"] {
        assert!(out.stdout.contains(id));
    }
    assert!(out.stdout.contains(" 0 failed"));
}

#[test]
fn calibration_doc_is_generated_not_hand_edited() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/CALIBRATION.md");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    let cal = calibrate(&Params::default());
    let fresh = calibration_markdown(&cal);
    assert!(on_disk == fresh, "docs/CALIBRATION.md is stale: run scripts/gen-docs.sh");
    // Its chart, redrawn here, must be the committed bytes.
    let png = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/groovy24_sweeps.png")).expect("docs/groovy24_sweeps.png");
    assert!(on_disk.contains("](groovy24_sweeps.png)"), "docs/CALIBRATION.md shows the chart");
    assert!(png == blast_cli::sweeps_chart(&cal).unwrap(), "docs/groovy24_sweeps.png is stale: run scripts/gen-docs.sh");
}

#[test]
fn sweep_prints_one_row_per_value() {
    let out = blast(&["sweep", "hotLoop_unrelatedMetaClassChurn", "--param", "churn_every=10,100,1000,10000", "--policy", "global,exact"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Vec<&str> = out.stdout.lines().skip(2).collect();
    assert_eq!(rows.len(), 4);
    let exact: Vec<f64> = rows.iter().map(|r| r.split_whitespace().nth(2).unwrap().parse().unwrap()).collect();
    assert!(exact.windows(2).all(|w| w[0] < w[1]), "exact improves as churn thins: {exact:?}");
}

#[test]
fn show_converts_between_dsl_and_json() {
    let json = blast(&["show", "hotLoop_baseline", "--format", "json"]).stdout;
    let dsl = blast(&["show", "hotLoop_baseline"]).stdout;
    let a = blast_engine::dsl::from_json(&json).unwrap();
    let b = blast_engine::dsl::parse(&dsl).unwrap();
    assert_eq!(a, b);
}

/// The text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in a generated doc
/// (`scripts/lab.sh --docs` writes it there).
fn generated_block<'a>(doc: &'a str, name: &str) -> &'a str {
    let (_, rest) = doc.split_once(&format!("<!-- {name}:begin -->\n")).unwrap_or_else(|| panic!("no {name}:begin marker"));
    rest.split_once(&format!("<!-- {name}:end -->")).unwrap_or_else(|| panic!("no {name}:end marker")).0
}

/// docs/RUNTIMES.md's fingerprint tables are generated from the kept probe results
/// (`scripts/lab.sh --docs`), never edited by hand.
#[test]
fn runtimes_doc_is_generated_from_the_kept_probe_results() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let doc = std::fs::read_to_string(format!("{root}/docs/RUNTIMES.md")).unwrap();
    let block = generated_block(&doc, "fingerprint");
    let mut prints = Vec::new();
    for runtime in ["cpython", "pypy", "node", "ruby", "jruby", "groovy"] {
        let Ok(text) = std::fs::read_to_string(format!("{root}/probes/results/{runtime}.json")) else { continue };
        let result = blast_engine::fingerprint::ProbeResult::parse(&text).unwrap();
        prints.push(blast_engine::fingerprint::fingerprint(&result).unwrap());
    }
    assert!(!prints.is_empty(), "probes/results/ holds no result");
    assert!(block == blast_cli::fingerprint_markdown(&prints), "docs/RUNTIMES.md is stale: run `bash scripts/lab.sh --docs`");
    // Its chart is drawn from the same results: redrawn here, it must be the committed bytes.
    let png = std::fs::read(format!("{root}/docs/runtimes.png")).expect("docs/runtimes.png");
    assert!(doc.contains("](runtimes.png)"), "docs/RUNTIMES.md shows the chart");
    assert!(png == blast_cli::plot::fingerprint_png(&prints).unwrap(), "docs/runtimes.png is stale: run `bash scripts/lab.sh --docs`");
}

#[test]
fn fingerprint_refuses_what_is_not_a_probe_result() {
    let dir = std::env::temp_dir().join(format!("blast-cli-fp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.json");
    std::fs::write(&file, r#"{"schema":"something-else/9"}"#).unwrap();
    let out = blast(&["fingerprint", file.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("bad.json"), "{}", out.stderr);
    assert_eq!(blast(&["fingerprint"]).code, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_writes_a_png_for_fingerprint_and_calibrate_only() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let result = format!("{root}/probes/results/cpython.json");
    let dir = std::env::temp_dir().join(format!("blast-cli-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("chart.png");
    let out = blast(&["fingerprint", &result, "--plot", png.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("best: hierarchy"), "the table is still printed");
    assert_eq!(&std::fs::read(&png).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
    let unwritable = blast(&["fingerprint", &result, "--plot", dir.join("no/such/dir.png").to_str().unwrap()]);
    assert_eq!(unwritable.code, 1);
    assert!(unwritable.stderr.contains("cannot draw the chart") && unwritable.stderr.contains("dir.png"), "{}", unwritable.stderr);
    let sweeps = dir.join("sweeps.png");
    let out = blast(&["calibrate", "--plot", sweeps.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("groovy 2.4 density"), "the checks are still printed");
    assert_eq!(&std::fs::read(&sweeps).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
    let elsewhere = blast(&["run", "hotLoop_baseline", "--plot", "x.png"]);
    assert_eq!(elsewhere.code, 2);
    assert!(elsewhere.stderr.contains("--plot"), "{}", elsewhere.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_reports_deopts_and_recompiles_per_policy() {
    // Under global every write retires the linked sites of the body preset's loop, whose C2
    // code inlined them; under exact the writes go to a class the loop never calls.
    let out = blast(&["run", "fidelity_methodBodies", "--policy", "global,exact"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let section = out.stdout.split("Compiled code over the whole run").nth(1).expect("a compiled-code section");
    let counts = |policy: &str| -> (u64, u64) {
        let line = section.lines().find(|l| l.trim_start().starts_with(policy)).unwrap_or_else(|| panic!("{policy} in {section}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        (cells[1].parse().unwrap(), cells[3].parse().unwrap())
    };
    let (global_deopts, global_recompiles) = counts("global");
    assert!(global_deopts > 0 && global_recompiles >= global_deopts, "{section}");
    assert_eq!(counts("exact"), (0, 0), "{section}");
}

#[test]
fn runtimes_doc_has_the_observed_scope_of_the_committed_traces() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let doc = std::fs::read_to_string(format!("{root}/docs/RUNTIMES.md")).unwrap();
    let block = generated_block(&doc, "traces");
    let mut logs: Vec<String> = std::fs::read_dir(format!("{root}/probes/traces/logs"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".log"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 3, "probes/traces/logs/ holds the samples: {logs:?}");
    let traces: Vec<(&str, blast_engine::trace::Trace)> =
        logs.iter().map(|p| (p.as_str(), blast_cli::read_trace(p, None, blast_engine::trace::Limits::default()).unwrap())).collect();
    let table = blast_cli::trace_scope_markdown(&traces);
    assert!(block == table, "docs/RUNTIMES.md's observed scope is stale: run `bash scripts/lab.sh --docs`\n{table}");
    // The table says what the samples show, not a fixed text: V8 scoped its deopts to the
    // written prototype, Groovy 2.4 relinked sites of unrelated classes too.
    let row = |name: &str| table.lines().find(|l| l.starts_with(&format!("| `{name}`"))).unwrap_or_else(|| panic!("no row for {name}"));
    assert!(!row("v8-proto-write").ends_with("| global |"), "{}", row("v8-proto-write"));
    assert!(row("groovy-unrelated-churn").ends_with("| global |"), "{}", row("groovy-unrelated-churn"));
}

#[test]
fn fingerprint_takes_a_trace_as_evidence_beside_a_probe_result() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let (probe, log) = (format!("{root}/probes/results/node.json"), format!("{root}/probes/traces/logs/groovy-unrelated-churn.log"));
    let out = blast(&["fingerprint", &probe, &log]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The probe's fingerprint first, then the log's evidence: its policies ranked by how well
    // they predict what the log shows, and the one the runtime behaved like.
    let evidence = out.stdout.split_once("trace evidence").map(|(_, rest)| rest).unwrap_or_else(|| panic!("{}", out.stdout));
    let like = evidence.lines().find_map(|l| l.trim().strip_prefix("the runtime behaved like: ")).expect("a verdict");
    let table = blast(&["trace", &log, "--replay"]);
    assert!(table.stdout.contains(&format!("the runtime behaved like: {like}")), "fingerprint and trace --replay agree: {like}\n{}", table.stdout);
    let ranked: Vec<&str> = evidence.lines().skip(2).take(5).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(ranked.len(), 5, "every policy ranked: {evidence}");
    assert!(like.split(" = ").any(|p| p == ranked[0]), "the best ranked is the verdict: {ranked:?} vs {like}");
    // JSON stays the probe fingerprints' shape: a log there is refused, pointing to trace's JSON.
    let json = blast(&["fingerprint", &log, "--format", "json"]);
    assert_eq!(json.code, 2, "{}", json.stderr);
    assert!(json.stderr.contains("blast trace") && json.stderr.contains("--replay --format json"), "{}", json.stderr);
}
