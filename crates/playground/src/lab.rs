//! The measured panel's sub-state: the probe result on screen, its fit, and the fit job for the
//! engine worker not yet posted (`fit_wire`). The result is not part of the scenario: it is not
//! saved or shared, and stays while scenarios change.
//!
//! Jobs are numbered: a fit answered after its result was cleared or replaced is dropped, so
//! the panel never shows one result's fingerprint beside another's measurements.

use std::rc::Rc;

use blast_engine::fingerprint::Fingerprint;

use crate::measured::{FitState, Measured};
use crate::worker::fit_wire::{self, FitRefusal};
use crate::worker::offload::Posting;

#[derive(Clone, Debug, PartialEq)]
pub enum LabAction {
    /// Show an imported (or reference) result, replacing the last one, and fit it.
    Show(Rc<Measured>),
    Clear,
    /// The engine worker's answer to fit job `job`.
    Fitted {
        job: u64,
        fitted: Result<Fingerprint, FitRefusal>,
    },
}

#[derive(Default)]
pub struct Lab {
    /// The result on screen and where its fit is.
    pub shown: Option<(Rc<Measured>, FitState)>,
    /// The last fit job's number (from 1).
    job: u64,
    outbox: Option<Posting>,
}

impl Lab {
    pub fn reduce(&mut self, action: LabAction) {
        match action {
            LabAction::Show(m) => {
                self.job += 1;
                self.outbox = Some(Posting { id: self.job, bytes: fit_wire::encode_job(self.job, &m.result) });
                self.shown = Some((m, FitState::Fitting));
            }
            LabAction::Clear => {
                self.job += 1;
                self.outbox = None;
                self.shown = None;
            }
            LabAction::Fitted { job, fitted } => {
                if let Some((_, fit)) = self.shown.as_mut().filter(|_| job == self.job) {
                    *fit = match fitted {
                        Ok(f) => FitState::Done(Rc::new(f)),
                        Err(why) => FitState::Failed(why.to_string()),
                    };
                }
            }
        }
    }

    /// The fit job to post to the engine worker, once (`AppState::take_fit`).
    pub fn take_fit(&mut self) -> Option<Posting> {
        self.outbox.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured;

    fn result(id: &str) -> Rc<Measured> {
        Rc::new(measured::reference_file(id).expect("a reference result"))
    }

    /// The worker's turn, as `lane_host::Host` takes it.
    fn answered(job: &Posting) -> LabAction {
        let (job, fitted) = fit_wire::decode_reply(&fit_wire::answer(&job.bytes)).expect("a readable reply");
        LabAction::Fitted { job, fitted }
    }

    #[test]
    fn a_shown_result_is_fitted_by_the_worker_once() {
        let mut lab = Lab::default();
        lab.reduce(LabAction::Show(result("groovy")));
        assert!(matches!(&lab.shown, Some((_, FitState::Fitting))));
        let job = lab.take_fit().expect("a fit job");
        assert_eq!(lab.take_fit(), None, "posted once");
        lab.reduce(answered(&job));
        let Some((m, FitState::Done(f))) = &lab.shown else { panic!("not fitted") };
        assert_eq!((m.result.runtime.as_str(), f.runtime.as_str(), f.fits.len()), ("groovy", "groovy", blast_engine::Policy::ALL.len()));
    }

    #[test]
    fn a_late_answer_for_a_replaced_or_cleared_result_is_dropped() {
        let mut lab = Lab::default();
        lab.reduce(LabAction::Show(result("groovy")));
        let first = lab.take_fit().unwrap();
        lab.reduce(LabAction::Show(result("node")));
        let second = lab.take_fit().unwrap();
        lab.reduce(answered(&first));
        assert!(matches!(&lab.shown, Some((m, FitState::Fitting)) if m.result.runtime == "node"), "groovy's fit is not node's");
        lab.reduce(answered(&second));
        assert!(matches!(&lab.shown, Some((_, FitState::Done(f))) if f.runtime == "node"));

        lab.reduce(LabAction::Show(result("ruby")));
        let third = lab.take_fit().unwrap();
        lab.reduce(LabAction::Clear);
        assert_eq!(lab.take_fit(), None, "a cleared result's job is not posted");
        lab.reduce(answered(&third));
        assert!(lab.shown.is_none());
    }

    #[test]
    fn a_failed_fit_is_shown_with_why() {
        let mut lab = Lab::default();
        lab.reduce(LabAction::Show(result("cpython")));
        let job = lab.take_fit().unwrap();
        lab.reduce(LabAction::Fitted { job: job.id, fitted: Err(FitRefusal::NoWorker) });
        assert!(matches!(&lab.shown, Some((_, FitState::Failed(why))) if why.contains("did not start")));
    }
}
