//! The engine worker's side of a model preset's replay: the `ModelRunner` the page used to run
//! lives here, one replay at a time, driven by the page's commands (`model_wire`).
//!
//! A frame's work is bounded by the wall clock as on the page it was bounded by the frame loop:
//! engine runs until the replay reaches the clock or the frame's budget (`lane_host::Host`
//! gives its lanes') has passed (a model run is not resumable, so one may take longer).

use blast_engine::expect::model::{self as model_expect, ModelExpectError, Placed};

use crate::model_runner::ModelRunner;
use crate::worker::model_wire::{self, Checked, Command, Request, Update, ViewForm};

/// The replay being run, which of its lanes' reports the page has, and the preset's
/// expectations about its variants (parsed, or why not).
struct Replaying {
    run: u64,
    runner: ModelRunner,
    reported: Vec<bool>,
    expectations: Result<Vec<Placed>, ModelExpectError>,
}

#[derive(Default)]
pub struct ModelHost {
    replay: Option<Replaying>,
}

impl ModelHost {
    /// A request in, its update out. `now_ms`: a wall clock for a frame's budget of `work_ms`.
    pub fn answer(&mut self, bytes: &[u8], now_ms: &dyn Fn() -> f64, work_ms: f64) -> Vec<u8> {
        let Request { run, commands } = match model_wire::decode_request(bytes) {
            Ok(request) => request,
            Err(e) => return refusal(0, format!("the engine worker could not read the replay's request ({e})")),
        };
        for command in commands {
            if let Command::Open { config, variants, expectations } = command {
                let names: Vec<&'static str> = variants.iter().filter_map(|&i| config.variants().get(i as usize).copied()).collect();
                let expectations = model_expect::parse(&expectations, &config);
                let runner = ModelRunner::new(config, &names);
                self.replay = Some(Replaying { run, reported: vec![false; runner.views().len()], runner, expectations });
                continue;
            }
            let Some(replay) = self.replay.as_mut().filter(|r| r.run == run) else {
                return refusal(run, "the engine worker no longer runs this replay".into());
            };
            let r = &mut replay.runner;
            match command {
                Command::Open { .. } => {}
                Command::Frame { advance_ms } => {
                    r.advance_clock(advance_ms);
                    let deadline = now_ms() + work_ms;
                    while !r.work(1) && now_ms() < deadline {}
                    r.end_frame();
                }
                Command::Step => {
                    r.step();
                    r.refresh();
                }
                Command::Rewind => r.rewind(),
            }
        }
        let Some(replay) = self.replay.as_mut().filter(|r| r.run == run) else {
            return refusal(run, "the engine worker no longer runs this replay".into());
        };
        let r = &replay.runner;
        let views = r
            .views()
            .iter()
            .zip(&mut replay.reported)
            .map(|(view, reported)| {
                let with_report = view.report.is_some() && !*reported;
                *reported |= with_report;
                ViewForm::of(view, with_report)
            })
            .collect();
        let length_ms = r.runs_done().then(|| r.longest_ms());
        let expectations = Checked::of(&replay.expectations, r.views());
        model_wire::encode_update(&Update { run, error: None, clock_ms: r.clock_ms(), finished: r.finished(), length_ms, views, expectations })
    }
}

/// An update that says the worker has no replay `run`, and why.
fn refusal(run: u64, why: String) -> Vec<u8> {
    model_wire::encode_update(&Update {
        run,
        error: Some(why),
        clock_ms: 0.0,
        finished: true,
        length_ms: None,
        views: Vec::new(),
        expectations: Checked::default(),
    })
}
