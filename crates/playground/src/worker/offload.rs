//! Reading a scenario text, in the engine worker only: parse, validation and the first
//! simulation build (the lanes the worker then runs), off the page's main thread.
//!
//! The page hands a [`Job`] to the engine worker (`src/worker.rs`, its own wasm module) and
//! gets back a [`Reply`] with the typed result: the validated `Scenario`, or where and why it
//! was refused. Every text goes this way (a paste, a keystroke, a link, a file, an autosave,
//! a form edit with the text it edits): the page never parses nor edits a scenario.
//! Everything here is plain Rust, so the protocol and its answers are tested natively.

use blast_engine::scenario::Scenario;
use blast_engine::{dsl, Params, Simulation};

use crate::runner::Runner;
use crate::worker::wire::{Job, Reply, Verdict};

/// The worker's first message: its handler is installed, jobs may be posted.
pub const READY: &str = "ready";

/// A job read without keeping its lanes (tests).
#[cfg(test)]
pub fn run(job: &Job) -> Reply {
    read(job, false).0
}

/// Read a job's text, apply its form edit if it has one, and check the run. With `hold` (the
/// worker), the scenario keeps the lanes that check built, and the reply says so.
pub fn read(job: &Job, hold: bool) -> (Reply, Option<(Scenario, Runner)>) {
    let read = dsl::parse(&job.text).map(|scenario| match &job.edit {
        None => Ok((scenario, None)),
        Some(op) => crate::editor::apply(&scenario, op).map(|edited| {
            let text = dsl::print(&edited);
            (edited, Some(text))
        }),
    });
    let (verdict, held) = match read {
        Err(e) => (Verdict::Invalid { message: e.to_string(), error: e.into() }, None),
        Ok(Err(refusal)) => (Verdict::Refused(refusal.to_string()), None),
        Ok(Ok((scenario, edited))) => {
            let looped = job.looping.then(|| crate::editor::looping(&scenario));
            let lanes = looped.as_ref().unwrap_or(&scenario);
            let text = edited.as_deref().unwrap_or(&job.text);
            let expect_lines = if scenario.expectations.is_empty() { Vec::new() } else { expectation_lines(text) };
            let (run_error, runner) = if hold {
                match Runner::new(lanes, &job.policies, &Params::default()) {
                    Ok(r) => (None, Some(r)),
                    Err(e) => (Some(e.to_string()), None),
                }
            } else {
                (Simulation::for_policies(lanes, &job.policies, &Params::default()).err().map(|e| e.to_string()), None)
            };
            let held = runner.map(|r| (scenario.clone(), r));
            (Verdict::Read { scenario: Box::new(scenario), run_error, expect_lines, held: held.is_some(), edited }, held)
        }
    };
    (Reply { id: job.id, verdict }, held)
}

/// The text line of each expectation (`None` when the text does not parse): the gutter marks
/// failed ones, the expectations panel shows the number.
pub fn expectation_lines(text: &str) -> Vec<Option<usize>> {
    let Ok((s, spans)) = dsl::parse_unchecked(text) else { return Vec::new() };
    (0..s.expectations.len()).map(|i| spans.get(&format!("expectations[{i}]")).map(|&(line, _)| line)).collect()
}

/// A job as the page posts it: its bytes (`wire::encode_job`, the text is most of them), made
/// when the reducer hands the text out, and its id.
#[derive(Clone, Debug, PartialEq)]
pub struct Posting {
    pub id: u64,
    pub bytes: Vec<u8>,
}

/// A reading's whole turn, keeping nothing: bytes in, bytes out (tests; the worker's is
/// `lane_host::Host::answer`). A job it cannot read is answered as failed, under id 0, which
/// no job has (`state` numbers them from 1).
#[cfg(test)]
pub fn answer(job: &[u8]) -> Vec<u8> {
    let reply = match crate::worker::wire::decode_job(job) {
        Ok(job) => run(&job),
        Err(e) => Reply { id: 0, verdict: Verdict::Failed(format!("the engine worker could not read the job ({e})")) },
    };
    crate::worker::wire::encode_reply(&reply)
}

/// The page reads the worker's reply (`answer`) at once (the page itself steps a
/// `wire::ReplyDecoder`).
pub fn decode_reply(bytes: &[u8]) -> Result<Reply, crate::worker::wire::DecodeError> {
    crate::worker::wire::decode_reply(bytes)
}

/// Why a reply was not read, for the user.
pub fn unreadable(e: crate::worker::wire::DecodeError) -> String {
    format!("the engine worker's reply is unreadable ({e})")
}

/// About how many sites a scenario text declares (for "loading N sites…"): lines that start
/// with `site`. Cheap (no parse), and only a progress figure.
pub fn site_count_hint(text: &str) -> usize {
    // Line by line (`split` finds newlines with `memchr`): it runs in the paste's edit, over
    // megabytes. Searching for the word (`match_indices("site")`, a two-way string search) was
    // two thirds of that task's CPU in a profile of a 3.5 MB paste.
    text.split('\n').filter(|line| line.trim_start_matches([' ', '\t']).strip_prefix("site").is_some_and(|rest| rest.starts_with(char::is_whitespace))).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::{presets, Policy};

    fn job(text: &str) -> Job {
        Job { id: 7, text: text.into(), policies: vec![Policy::Global, Policy::Exact], looping: false, edit: None }
    }

    /// Through the bytes both sides exchange.
    fn round_trip(job: &Job) -> Reply {
        decode_reply(&answer(&crate::worker::wire::encode_job(job.id, &job.text, &job.policies, job.looping, job.edit.as_ref()))).expect("a readable reply")
    }

    #[test]
    fn a_valid_text_comes_back_as_the_typed_scenario() {
        for p in presets::all().iter().take(5) {
            let reply = round_trip(&job(p.text));
            assert_eq!(reply.id, 7);
            let expect_lines = expectation_lines(p.text);
            assert_eq!(reply.verdict, Verdict::Read { scenario: Box::new(p.scenario()), run_error: None, expect_lines, held: false, edited: None }, "{}", p.id);
        }
    }

    #[test]
    fn a_form_edit_comes_back_as_the_edited_scenario_and_its_printed_text() {
        use crate::editor::{self, EditOp};
        let text = "scenario \"e\"\nclass A { m }\nsite s = A.m\nop { loop 2 { call s } }\nexpect under exact: relinks == 0\n";
        let ops = [
            EditOp::AddClass { name: "B".into(), parent: Some("A".into()) },
            EditOp::AddSite(blast_engine::scenario::SiteDecl::mono("t", "A", "m")),
            EditOp::AddClass { name: "C".into(), parent: None },
            EditOp::SetWorkload(editor::Workload {
                iterations: 5,
                calls: vec!["s".into()],
                churn: Some(editor::Churn { period: 2, class: "A".into(), method: "m".into() }),
            }),
        ];
        for op in ops {
            let reply = round_trip(&Job { edit: Some(op.clone()), ..job(text) });
            let edited = editor::apply(&dsl::parse(text).unwrap(), &op).unwrap();
            let printed = dsl::print(&edited);
            let expect_lines = expectation_lines(&printed);
            assert_eq!(
                reply.verdict,
                Verdict::Read { scenario: Box::new(edited), run_error: None, expect_lines, held: false, edited: Some(printed) },
                "{op:?}"
            );
        }
        // A refused edit says why, and an edit of a text that does not read is that text's error.
        let refused = round_trip(&Job { edit: Some(EditOp::AddClass { name: "A".into(), parent: None }), ..job(text) });
        assert_eq!(refused.verdict, Verdict::Refused(editor::EditError::Exists { what: "class", name: "A".into() }.to_string()));
        let broken = round_trip(&Job { edit: Some(EditOp::DeleteClass("A".into())), ..job("class A {") });
        assert!(matches!(broken.verdict, Verdict::Invalid { .. }), "{broken:?}");
    }

    #[test]
    fn an_invalid_text_comes_back_located() {
        let reply = round_trip(&job("class A { m }\nsite s = B.m\nop { loop 1 { call s } }\n"));
        let Verdict::Invalid { error, message } = reply.verdict else { panic!("{reply:?}") };
        assert_eq!((error.line, message.starts_with("2:")), (2, true), "{error:?} {message}");
        assert!(error.message.contains('B'), "{error:?}");
    }

    #[test]
    fn a_text_the_engine_refuses_to_run_is_read_but_not_built() {
        let hostile = "class A { m }\nsite s = A.m\nop { loop 1000000000000 { every 1 { write A.x } call s } }\n";
        let Verdict::Read { run_error, .. } = round_trip(&job(hostile)).verdict else { panic!("it parses") };
        assert!(run_error.is_some_and(|e| e.contains("work units")));
    }

    #[test]
    fn an_unreadable_job_is_answered_not_dropped() {
        let reply = decode_reply(&answer(b"\xff\xff")).expect("a reply");
        assert_eq!(reply.id, 0);
        assert!(matches!(reply.verdict, Verdict::Failed(why) if why.contains("could not read")));
        assert!(decode_reply(b"").is_err());
    }

    #[test]
    fn site_lines_are_counted_without_parsing() {
        assert_eq!(site_count_hint("class site { m }\nsite a = A.m\n  site\tb = A.m\nsites\n// site x\n"), 2);
    }
}
