//! The measured panel's fit, done by the engine worker (the engine leaves the
//! page a part at a time). The page posts the probe result it imported (read and checked there,
//! `measured::import`), typed; the worker checks it again, fits every policy
//! (`fingerprint::Fitting`, ~70 ms natively for a reference result) and answers with the typed
//! fingerprint, or why there is none. Nothing here reads JSON: the worker ships no JSON parser.
//!
//! Why in the worker: the fit simulates every probe workload under every policy, so on the
//! page it linked the fingerprint module and its workload file (7.8 KB of the page's module
//! gzipped, before wasm-opt) and ran as five tasks of simulation on the main thread. The page
//! keeps only the import (`measured::import`: the located errors it shows at once).
//!
//! The format is postcard's, through serde's derives on the engine's types (`wire::put_whole`,
//! `wire::take_whole`): a job is `(FIT, id, ProbeResult)`, a reply `(FIT, id, Result<Fingerprint,
//! String>)`. Decoding is total: bytes that are not a fit message give an error, never a panic.

use std::fmt;

use blast_engine::fingerprint::{Fingerprint, FingerprintError, Fitting, ProbeResult};

use crate::worker::wire::{put_whole, take_whole, DecodeError, FIT};

/// A fit job as the page posts it: its number (answers name it) and the probe result.
pub fn encode_job(id: u64, result: &ProbeResult) -> Vec<u8> {
    put_whole(FIT, &(id, result))
}

pub fn decode_job(bytes: &[u8]) -> Result<(u64, ProbeResult), DecodeError> {
    take_whole(bytes, FIT)
}

/// Why a probe result has no fit, as the measured panel says it.
#[derive(Clone, Debug, PartialEq)]
pub enum FitRefusal {
    /// The worker refused the job: the result's check or the fit (`FingerprintError`), or a job
    /// it could not read, in its words (they cross the worker's wire as text).
    Refused(String),
    /// The page could not read the worker's answer.
    AnswerUnreadable(DecodeError),
    /// The worker stopped (or did not start: `started` false) while the job was out.
    WorkerLost { started: bool, why: String },
    /// There is no worker to fit in.
    NoWorker,
}

impl fmt::Display for FitRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitRefusal::Refused(why) => f.write_str(why),
            FitRefusal::AnswerUnreadable(e) => write!(f, "the engine worker's answer is unreadable ({e})"),
            FitRefusal::WorkerLost { started, why } => write!(f, "the engine worker {} ({why})", if *started { "stopped" } else { "did not start" }),
            FitRefusal::NoWorker => f.write_str("the fit runs in the engine worker, which did not start"),
        }
    }
}

/// The fit of a probe result: every policy, in one go (the worker has no page to keep
/// responsive), or why not.
pub fn fit(result: &ProbeResult) -> Result<Fingerprint, FingerprintError> {
    // Checked again: the bytes came from the page, but a check is cheap and the fit divides by
    // these numbers.
    result.check()?;
    let mut fitting = Fitting::new(result)?;
    // One step per policy: `Policy::ALL.len()` steps end it.
    loop {
        if let Some(fingerprint) = fitting.step()? {
            return Ok(fingerprint);
        }
    }
}

/// The worker's whole turn for a fit job: bytes in, bytes out. A job it cannot read is answered
/// as failed, under id 0, which no job has (`lab::Lab` numbers them from 1).
pub fn answer(job: &[u8]) -> Vec<u8> {
    match decode_job(job) {
        Ok((id, result)) => match fit(&result) {
            Ok(fingerprint) => encode_reply(id, Ok(&fingerprint)),
            Err(why) => encode_reply(id, Err(&why.to_string())),
        },
        Err(why) => encode_reply(0, Err(&format!("the engine worker could not read the fit job ({why})"))),
    }
}

/// A fit, or why there is none in words, as bytes.
pub fn encode_reply(id: u64, fitted: Result<&Fingerprint, &str>) -> Vec<u8> {
    put_whole(FIT, &(id, fitted))
}

/// The id of the job answered, and its fit or why there is none.
pub fn decode_reply(bytes: &[u8]) -> Result<(u64, Result<Fingerprint, FitRefusal>), DecodeError> {
    let (id, fitted): (u64, Result<Fingerprint, String>) = take_whole(bytes, FIT)?;
    // The panel reads `best()` (the first fit) and one simulated value per pair.
    if let Ok(f) = &fitted {
        if f.fits.is_empty() || f.fits.iter().any(|fit| fit.simulated.len() != f.pairs.len()) {
            return Err(DecodeError { at: bytes.len(), why: "a fingerprint without a fit for each pair" });
        }
    }
    Ok((id, fitted.map_err(FitRefusal::Refused)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured;
    use blast_engine::Policy;

    fn reference(id: &str) -> ProbeResult {
        measured::reference_file(id).expect("a reference result").result
    }

    #[test]
    fn every_reference_result_travels_whole_and_its_fingerprint_comes_back_whole() {
        for id in measured::reference_ids() {
            let result = reference(id);
            assert_eq!(decode_job(&encode_job(9, &result)), Ok((9, result.clone())), "{id}");
            let (job, back) = decode_reply(&answer(&encode_job(9, &result))).expect("a readable reply");
            let fitted = blast_engine::fingerprint::fingerprint(&result).expect("a reference result fits");
            assert_eq!((job, back), (9, Ok(fitted.clone())), "{id}: the worker's fit is the engine's");
            assert_eq!(fitted.fits.len(), Policy::ALL.len(), "{id}: every policy fitted");
        }
    }

    #[test]
    fn a_result_that_cannot_be_fitted_comes_back_with_why() {
        let mut no_churn = reference("groovy");
        no_churn.rows.retain(|r| r.workload == "baseline");
        let (id, back) = decode_reply(&answer(&encode_job(3, &no_churn))).expect("a readable reply");
        assert_eq!((id, back), (3, Err(FitRefusal::Refused("the result has no churn workload".to_string()))));
        // The worker checks what it is sent, as the import did: a row it would divide by zero with.
        let mut zero = reference("groovy");
        zero.rows[1].iterations = 0;
        let why = decode_reply(&answer(&encode_job(4, &zero))).unwrap().1.unwrap_err().to_string();
        assert!(why.starts_with("rows[1]") && why.contains("iterations is 0"), "{why}");
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let job = encode_job(5, &reference("node"));
        let good = answer(&job);
        for (bytes, what) in [(&job, "job"), (&good, "reply")] {
            for cut in 0..bytes.len() {
                let decoded = if what == "job" { decode_job(&bytes[..cut]).err() } else { decode_reply(&bytes[..cut]).err() };
                assert!(decoded.is_some(), "a {what} cut at {cut}");
            }
        }
        // Any byte flipped: a reply, a refusal or an error, never a panic.
        for (bytes, what) in [(&job, "job"), (&good, "reply")] {
            let mut flipped = bytes.clone();
            for i in 0..flipped.len() {
                flipped[i] ^= 0xff;
                let _ = if what == "job" { decode_job(&flipped).map(|_| ()) } else { decode_reply(&flipped).map(|_| ()) };
                flipped[i] ^= 0xff;
            }
        }
        // A fingerprint the panel could not read (no fit, or a fit short of a pair) is refused.
        let mut fitted = blast_engine::fingerprint::fingerprint(&reference("node")).expect("fits");
        fitted.fits[0].simulated.pop();
        assert_eq!(decode_reply(&encode_reply(1, Ok(&fitted))).map_err(|e| e.why), Err("a fingerprint without a fit for each pair"));
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(decode_reply(&trailing).is_err());
        assert!(decode_reply(&job).is_err(), "a job is not a reply");
        let (id, why) = decode_reply(&answer(b"\x02\xff")).expect("an unreadable job is answered");
        assert!(id == 0 && why.unwrap_err().to_string().contains("could not read"));
    }
}
