//! What `blast show` prints, `blast run` takes back: a scenario `run` would refuse (its work
//! bound under the policies asked for) is not printed, and the refusal is `run`'s, word for
//! word; under a policy that admits it, the scenario is printed.

use blast_cli::main_with_args;

mod support;
use support::{temp_file, TempFile};

fn blast(args: &[&str]) -> blast_cli::Output {
    main_with_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

/// A million writes to `A.m` beside a class `B` of 1,000 sites: each write reaches every site
/// under `global` (refused), only `A`'s one site under `exact` (admitted).
fn wide_world_with_writes_to_a_small_class() -> TempFile {
    let mut text = String::from("measure warmup 0 ops 1\nclass A { m }\nclass B { m }\nsite a = A.m\n");
    for i in 0..1000 {
        text.push_str(&format!("site b{i} = B.m\n"));
    }
    text.push_str("op { loop 1000000 { every 1 { write A.m } call a } }\n");
    temp_file("wide.blast", text)
}

#[test]
fn show_refuses_what_run_refuses_with_the_same_message_and_prints_what_run_admits() {
    let path = wide_world_with_writes_to_a_small_class();
    let run = blast(&["run", &path]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("work units under global, more than the 200,000,000 a run may take"), "{}", run.stderr);
    for format in ["dsl", "json"] {
        let show = blast(&["show", &path, "--format", format]);
        assert_eq!((show.code, show.stdout.as_str(), show.stderr.as_str()), (1, "", run.stderr.as_str()), "{format}");
    }
    let global = blast(&["show", &path, "--policy", "exact,global"]);
    assert_eq!((global.code, global.stderr.as_str()), (1, run.stderr.as_str()));
    let exact = blast(&["show", &path, "--policy", "exact"]);
    assert_eq!(exact.code, 0, "{}", exact.stderr);
    assert!(exact.stdout.contains("site b999 = B.m") && exact.stdout.contains("write A.m"), "{}", &exact.stdout[..200]);
}
