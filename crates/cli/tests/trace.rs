//! `blast trace` on the committed real logs (probes/traces/logs/), through `main_with_args`.

use blast_cli::main_with_args;

fn blast(args: &[&str]) -> blast_cli::Output {
    main_with_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn log(name: &str) -> String {
    format!("{}/../../probes/traces/logs/{name}.log", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn trace_prints_format_counts_and_each_blast_radius() {
    let out = blast(&["trace", &log("hotspot-cha-break")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(": hotspot, JDK 17."), "{}", out.stdout);
    assert!(out.stdout.contains("0 not understood"));
    assert!(out.stdout.contains("class-load ChaBreak$Triangle: 0 sites, 6 code units"), "{}", out.stdout);
    assert!(out.stdout.contains("10 classes in the capture's class tree"), "NAME.classes is read beside NAME.log: {}", out.stdout);
    let out = blast(&["trace", &log("v8-proto-write"), &log("groovy-unrelated-churn")]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains(": v8, V8 11.3.244.8-node.38"));
    assert!(out.stdout.contains("prototype-write Point.extra2 at "), "{}", out.stdout);
    assert!(out.stdout.contains(": groovy, "));
    assert!(out.stdout.contains("metaclass-change Unrelated: "));
}

#[test]
fn trace_csv_has_one_row_per_mutation_and_json_parses() {
    let out = blast(&["trace", &log("hotspot-plugin-registry"), "--format", "csv"]);
    assert_eq!(out.code, 0);
    let rows: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(rows[0], "file,format,line,kind,class,member,site,sites,code_units,exact,by_order");
    assert_eq!(rows.len(), 3, "{}", out.stdout);
    assert!(rows[1].contains(",hotspot,258,class-load,PluginRegistry$Xor,"));
    let out = blast(&["trace", &log("groovy-same-class-churn"), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[0]["format"], "groovy");
    assert_eq!(v[0]["not_understood"], 0);
    assert_eq!(v[0]["blast_radius"].as_array().unwrap().len(), v[0]["mutations"].as_u64().unwrap() as usize);
}

#[test]
fn trace_forced_format_and_mistakes() {
    // Forcing the wrong format: nothing is understood, and it says so.
    let out = blast(&["trace", &log("hotspot-cha-break"), "--log-format", "groovy"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains(": groovy, "));
    assert!(out.stdout.contains("lines not understood, first at 1: <?xml"), "{}", out.stdout);
    let out = blast(&["trace", "x.log", "--log-format", "jfr"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown log format `jfr`"), "{}", out.stderr);
    let out = blast(&["run", "fanout_root", "--log-format", "v8"]);
    assert_eq!(out.code, 2);
    let out = blast(&["trace", "/nonexistent/trace.log"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("/nonexistent/trace.log"));
    assert_eq!(blast(&["trace"]).code, 2);
    assert_eq!(blast(&["trace", &log("v8-proto-write"), "--format", "dsl"]).code, 2);
}

#[test]
fn trace_of_a_file_that_is_not_a_log_says_so() {
    let path = std::env::temp_dir().join(format!("blast-trace-notalog-{}.txt", std::process::id()));
    std::fs::write(&path, "hello\nworld\n").unwrap();
    let out = blast(&["trace", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains(": unrecognized, version not stated"), "{}", out.stdout);
    assert!(out.stdout.contains("2 lines not understood, first at 1 (before the format was recognized): hello"), "{}", out.stdout);
}

#[test]
fn trace_replay_prints_the_table_and_the_scenario() {
    let out = blast(&["trace", &log("groovy-same-class-churn"), "--replay"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("replay under every policy:"));
    assert!(out.stdout.contains("the runtime behaved like: global\n"), "{}", out.stdout);
    let out = blast(&["trace", &log("hotspot-cha-break"), "--replay"]);
    assert!(out.stdout.contains("code units compiled on class assumptions replayed"), "{}", out.stdout);
    assert!(out.stdout.contains("the runtime behaved like: ideal\n"), "{}", out.stdout);
    let out = blast(&["trace", &log("v8-proto-write"), "--replay", "--format", "dsl"]);
    assert_eq!(out.code, 0);
    let s = blast_engine::dsl::parse(&out.stdout).unwrap();
    assert!(s.classes.iter().any(|c| c.name == "Point"));
    let out = blast(&["trace", &log("v8-proto-write"), "--replay", "--format", "csv"]);
    let rows: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(rows[0], "file,line,mutation,policy,linked,observed,predicted,hits,extra,missed,precision,recall");
    assert_eq!((rows.len() - 1) % blast_engine::Policy::ALL.len(), 0);
    assert_eq!(blast(&["trace", &log("v8-proto-write"), "--format", "dsl"]).code, 2, "dsl needs --replay");
    assert_eq!(blast(&["run", "fanout_root", "--replay"]).code, 2);
}

#[test]
fn a_class_load_replay_needs_the_class_tree_and_a_bad_tree_is_refused_with_its_line() {
    let dir = std::env::temp_dir().join(format!("blast-trace-tree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("cha.log");
    std::fs::copy(log("hotspot-cha-break"), &copy).unwrap();
    let copy = copy.to_str().unwrap();
    let alone = blast(&["trace", copy, "--replay"]);
    std::fs::write(dir.join("cha.classes"), "class A\nclass B extends\n").unwrap();
    let bad = blast(&["trace", copy]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    assert!(alone.stdout.contains("no replay: the class tree does not hold ChaBreak$Triangle"), "{}", alone.stdout);
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("cha.classes: class tree line 2: `extends` without its value"), "{}", bad.stderr);
}
