//! The measured panel's sub-state: the probe result on screen and its fit, the text being read,
//! why the last one was refused, and the read-and-fit job for the engine worker not yet posted
//! (`fit_wire`). The result is not part of the scenario: it is not saved or shared, and stays
//! while scenarios change.
//!
//! Jobs are numbered: an answer that comes after its text was replaced or the panel cleared is
//! dropped, so the panel never shows one text's answer under another's name.

use std::rc::Rc;

use crate::measured::{FitState, Measured};
use crate::worker::fit_wire::{self, ReadRefusal};
use crate::worker::offload::Posting;

#[derive(Clone, Debug, PartialEq)]
pub enum LabAction {
    /// Read a probe result's text in the engine worker and fit it; `origin` names it (a file's
    /// name, "pasted text", a reference result). The result on screen stays until the answer.
    Read {
        text: String,
        origin: String,
    },
    /// A text that could not be handed to the reading (too big, unreadable, not fetched).
    Refuse {
        origin: String,
        why: String,
    },
    Clear,
    /// The engine worker's answer to job `job`: the result and its fit, or why there is none.
    Answered {
        job: u64,
        answer: Box<Result<fit_wire::Fitted, ReadRefusal>>,
    },
}

/// Why the last text is not on screen, and what it was.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub origin: String,
    pub why: ReadRefusal,
}

#[derive(Default)]
pub struct Lab {
    /// The result on screen and its fit.
    pub shown: Option<(Rc<Measured>, FitState)>,
    /// The origin of the text being read, until its answer.
    pub reading: Option<String>,
    /// Why the last text was refused; cleared by the next text and by a result.
    pub refusal: Option<Refusal>,
    /// The last job's number (from 1).
    job: u64,
    outbox: Option<Posting>,
}

impl Lab {
    pub fn reduce(&mut self, action: LabAction) {
        match action {
            LabAction::Read { text, origin } => {
                self.job += 1;
                self.outbox = Some(Posting { id: self.job, bytes: fit_wire::encode_job(self.job, &text) });
                self.reading = Some(origin);
                self.refusal = None;
            }
            // The newest text wins, as a `Read` after a `Read`: a text still being read is let
            // go, so its answer cannot clear this refusal or show under the reading note.
            LabAction::Refuse { origin, why } => {
                self.job += 1;
                self.outbox = None;
                self.reading = None;
                self.refusal = Some(Refusal { origin, why: ReadRefusal::NotLoaded(why) });
            }
            LabAction::Clear => {
                self.job += 1;
                *self = Lab { job: self.job, ..Lab::default() };
            }
            LabAction::Answered { job, answer } => {
                if job != self.job {
                    return;
                }
                let Some(origin) = self.reading.take() else { return };
                match *answer {
                    Ok((result, fitted)) => {
                        let fit = match fitted {
                            Ok(f) => FitState::Done(Rc::new(f)),
                            Err(why) => FitState::Failed(why),
                        };
                        self.shown = Some((Rc::new(Measured { origin, result }), fit));
                        self.refusal = None;
                    }
                    Err(why) => self.refusal = Some(Refusal { origin, why }),
                }
            }
        }
    }

    /// The job to post to the engine worker, once (`AppState::take_fit`).
    pub fn take_fit(&mut self) -> Option<Posting> {
        self.outbox.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured;

    fn read(id: &str) -> LabAction {
        LabAction::Read { text: measured::reference_text(id).expect("a reference result"), origin: measured::reference_origin(id) }
    }

    /// The worker's turn, as `lane_host::Host` takes it.
    fn answered(job: &Posting) -> LabAction {
        let (job, answer) = fit_wire::decode_reply(&fit_wire::answer(&job.bytes)).expect("a readable reply");
        LabAction::Answered { job, answer: Box::new(answer) }
    }

    #[test]
    fn a_text_is_read_and_fitted_by_the_worker_once() {
        let mut lab = Lab::default();
        lab.reduce(read("groovy"));
        assert_eq!((lab.reading.as_deref(), lab.shown.is_none()), (Some("reference result (probes/results/groovy.json)"), true));
        let job = lab.take_fit().expect("a job");
        assert_eq!(lab.take_fit(), None, "posted once");
        lab.reduce(answered(&job));
        let Some((m, FitState::Done(f))) = &lab.shown else { panic!("not fitted") };
        assert_eq!((m.result.runtime.as_str(), f.runtime.as_str(), f.fits.len()), ("groovy", "groovy", blast_engine::Policy::ALL.len()));
        assert_eq!((m.origin.as_str(), lab.reading.as_deref()), ("reference result (probes/results/groovy.json)", None));
    }

    #[test]
    fn a_late_answer_for_a_replaced_or_cleared_text_is_dropped() {
        let mut lab = Lab::default();
        lab.reduce(read("groovy"));
        let first = lab.take_fit().unwrap();
        lab.reduce(read("node"));
        let second = lab.take_fit().unwrap();
        lab.reduce(answered(&first));
        assert!(lab.shown.is_none() && lab.reading.as_deref() == Some("reference result (probes/results/node.json)"), "groovy's answer is not node's");
        lab.reduce(answered(&second));
        assert!(matches!(&lab.shown, Some((m, FitState::Done(f))) if f.runtime == "node" && m.result.runtime == "node"));

        lab.reduce(read("ruby"));
        let third = lab.take_fit().unwrap();
        lab.reduce(LabAction::Clear);
        assert_eq!(lab.take_fit(), None, "a cleared text's job is not posted");
        lab.reduce(answered(&third));
        assert!(lab.shown.is_none() && lab.reading.is_none());
    }

    #[test]
    fn a_refused_text_keeps_the_last_result_and_the_next_text_clears_the_refusal() {
        let mut lab = Lab::default();
        lab.reduce(read("cpython"));
        let job = lab.take_fit().unwrap();
        lab.reduce(answered(&job));
        lab.reduce(LabAction::Read { text: "hello".into(), origin: "pasted text".into() });
        let job = lab.take_fit().unwrap();
        lab.reduce(answered(&job));
        let Some(Refusal { origin, why: ReadRefusal::NotAResult(_) }) = &lab.refusal else { panic!("{:?}", lab.refusal) };
        assert_eq!(origin, "pasted text");
        assert!(matches!(&lab.shown, Some((m, _)) if m.result.runtime == "cpython"), "the last result stays");
        // A text refused on the page while another is read: the newer refusal stays, the older
        // text's answer is dropped.
        lab.reduce(read("pypy"));
        let pending = lab.take_fit().unwrap();
        lab.reduce(LabAction::Refuse { origin: "big.json".into(), why: "it is over 1 MB".into() });
        assert!(matches!(&lab.refusal, Some(Refusal { why: ReadRefusal::NotLoaded(_), .. })) && lab.reading.is_none());
        lab.reduce(answered(&pending));
        assert!(matches!(&lab.refusal, Some(Refusal { origin, .. }) if origin == "big.json"), "{:?}", lab.refusal);
        assert!(matches!(&lab.shown, Some((m, _)) if m.result.runtime == "cpython"), "pypy's late answer is dropped");
        lab.reduce(read("pypy"));
        assert_eq!(lab.refusal, None);
    }

    #[test]
    fn without_a_worker_the_text_is_refused_with_why_and_nothing_is_shown() {
        let mut lab = Lab::default();
        lab.reduce(read("cpython"));
        let job = lab.take_fit().unwrap();
        lab.reduce(LabAction::Answered { job: job.id, answer: Box::new(Err(ReadRefusal::NoWorker)) });
        let Some(refusal) = &lab.refusal else { panic!("no refusal") };
        assert!(refusal.why.to_string().contains("did not start") && lab.shown.is_none() && lab.reading.is_none());
    }
}
