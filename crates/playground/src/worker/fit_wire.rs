//! The measured panel's reading and fit, done by the engine worker (the page holds no engine
//! path of its own). The page posts the text of a probe result (a file, a paste, a reference
//! result it fetched); the worker reads it (`measured::read`: the located errors the panel
//! shows), fits every policy (`fingerprint::Fitting`, ~70 ms natively for a reference result)
//! and answers with the result and its fingerprint, or why the text is not a probe result.
//!
//! Why in the worker: the fit simulates every probe workload under every policy, and the
//! reading is serde_json's derived parser of the probe schema with its checks (7.6 KiB of the
//! page's module gzipped, `bash scripts/size-report.sh`, 2026-12-07). Without a worker the panel
//! says the result was not read, and why.
//!
//! The format is postcard's, through serde's derives (`wire::put_whole`, `wire::take_whole`): a
//! job is `(FIT, id, text)`, a reply `(FIT, id, Answer)`. Decoding is total: bytes that are not
//! a fit message give an error, never a panic.

use std::fmt;

use serde::{Deserialize, Serialize};

use blast_engine::fingerprint::{Fingerprint, FingerprintError, Fitting, ProbeResult};

use crate::measured;
use crate::worker::wire::{put_whole, take_whole, DecodeError, FIT};

/// A probe result and its fit, or why there is none, in words: the engine's `FingerprintError`
/// crosses the worker's wire as its message, which is all the panel shows of it.
pub type Fitted = (ProbeResult, Result<Fingerprint, String>);

/// The worker's answer to a text: the result and its fit, or why the text is not a result.
pub type Answer = Result<Fitted, Unreadable>;

/// Why a text is not a probe result, as the worker's reading says it: the message, and the
/// line it points at (1-based line, that line's text, 1-based column) when it has a place.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unreadable {
    pub message: String,
    pub excerpt: Option<(usize, String, usize)>,
}

/// A read-and-fit job as the page posts it: its number (answers name it) and the text.
pub fn encode_job(id: u64, text: &str) -> Vec<u8> {
    put_whole(FIT, &(id, text))
}

pub fn decode_job(bytes: &[u8]) -> Result<(u64, String), DecodeError> {
    take_whole(bytes, FIT)
}

/// Why a probe result is not on screen, as the measured panel says it.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadRefusal {
    /// The worker read the text and it is not a probe result.
    NotAResult(Unreadable),
    /// The text never reached the reading (a file too big or unreadable, a reference result not
    /// fetched), in words.
    NotLoaded(String),
    /// The page could not read the worker's answer.
    AnswerUnreadable(DecodeError),
    /// The worker stopped (or did not start: `started` false) while the job was out.
    WorkerLost { started: bool, why: String },
    /// There is no worker to read in.
    NoWorker,
}

impl fmt::Display for ReadRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadRefusal::NotAResult(why) => f.write_str(&why.message),
            ReadRefusal::NotLoaded(why) => f.write_str(why),
            ReadRefusal::AnswerUnreadable(e) => write!(f, "the engine worker's answer is unreadable ({e})"),
            ReadRefusal::WorkerLost { started, why } => write!(f, "the engine worker {} ({why})", if *started { "stopped" } else { "did not start" }),
            ReadRefusal::NoWorker => f.write_str("probe results are read in the engine worker, which did not start"),
        }
    }
}

/// The fit of a probe result: every policy, in one go (the worker has no page to keep
/// responsive), or why not.
pub fn fit(result: &ProbeResult) -> Result<Fingerprint, FingerprintError> {
    let mut fitting = Fitting::new(result)?;
    // One step per policy: `Policy::ALL.len()` steps end it.
    loop {
        if let Some(fingerprint) = fitting.step()? {
            return Ok(fingerprint);
        }
    }
}

/// A text read and, when it is a probe result, fitted.
pub fn read_and_fit(text: &str) -> Answer {
    let result = measured::read(text).map_err(|e| Unreadable { message: e.to_string(), excerpt: e.excerpt })?;
    let fitted = fit(&result).map_err(|e| e.to_string());
    Ok((result, fitted))
}

/// The worker's whole turn for a job: bytes in, bytes out. A job it cannot read is answered as
/// unreadable, under id 0, which no job has (`lab::Lab` numbers them from 1).
pub fn answer(job: &[u8]) -> Vec<u8> {
    match decode_job(job) {
        Ok((id, text)) => encode_reply(id, &read_and_fit(&text)),
        Err(why) => encode_reply(0, &Err(Unreadable { message: format!("the engine worker could not read the job ({why})"), excerpt: None })),
    }
}

pub fn encode_reply(id: u64, answer: &Answer) -> Vec<u8> {
    put_whole(FIT, &(id, answer))
}

/// The id of the job answered, and the result with its fit, or why the text is not one.
pub fn decode_reply(bytes: &[u8]) -> Result<(u64, Result<Fitted, ReadRefusal>), DecodeError> {
    let (id, answer): (u64, Answer) = take_whole(bytes, FIT)?;
    // The panel reads `best()` (the first fit) and one simulated value per pair.
    if let Ok((_, Ok(f))) = &answer {
        if f.fits.is_empty() || f.fits.iter().any(|fit| fit.simulated.len() != f.pairs.len()) {
            return Err(DecodeError { at: bytes.len(), why: "a fingerprint without a fit for each pair" });
        }
    }
    Ok((id, answer.map_err(ReadRefusal::NotAResult)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::Policy;

    fn reference_text(id: &str) -> String {
        measured::reference_text(id).expect("a reference result")
    }

    #[test]
    fn every_reference_result_is_read_and_fitted_and_comes_back_whole() {
        for id in measured::reference_ids() {
            let text = reference_text(id);
            assert_eq!(decode_job(&encode_job(9, &text)), Ok((9, text.clone())), "{id}");
            let (job, back) = decode_reply(&answer(&encode_job(9, &text))).expect("a readable reply");
            let result = measured::read(&text).expect("a reference result reads");
            let fitted = blast_engine::fingerprint::fingerprint(&result).expect("a reference result fits");
            assert_eq!((job, back), (9, Ok((result, Ok(fitted.clone())))), "{id}: the worker's reading and fit are the engine's");
            assert_eq!(fitted.fits.len(), Policy::ALL.len(), "{id}: every policy fitted");
        }
    }

    #[test]
    fn a_text_that_is_not_a_result_comes_back_placed_and_one_that_cannot_be_fitted_with_why() {
        let (id, back) = decode_reply(&answer(&encode_job(2, "{\n  \"schema\": \"blast-radius-probe/1\",\n  \"rows\": [,]\n}"))).unwrap();
        let Err(ReadRefusal::NotAResult(why)) = back else { panic!("read: {back:?}") };
        assert_eq!((id, why.excerpt), (2, Some((3, "  \"rows\": [,]".to_string(), 12))));
        assert!(why.message.starts_with("3:12: not a probe result"), "{}", why.message);
        // A row it would divide by zero with is refused by the reading, with its place.
        let zero = reference_text("cpython").replacen("\"iterations\": 20000", "\"iterations\": 0", 2);
        let (_, back) = decode_reply(&answer(&encode_job(4, &zero))).unwrap();
        let Err(ReadRefusal::NotAResult(why)) = back else { panic!("read: {back:?}") };
        assert!(why.message.contains("rows[0] (baseline): iterations is 0") && why.excerpt.is_some(), "{why:?}");
        // Read, but with nothing to fit: the result comes back with why there is no fit.
        let mut no_churn: serde_json::Value = serde_json::from_str(&reference_text("groovy")).unwrap();
        no_churn["rows"].as_array_mut().unwrap().retain(|r| r["workload"] == "baseline");
        let (id, back) = decode_reply(&answer(&encode_job(3, &no_churn.to_string()))).unwrap();
        let Ok((result, fitted)) = back else { panic!("not read: {back:?}") };
        assert_eq!((id, result.runtime.as_str(), fitted), (3, "groovy", Err("the result has no churn workload".to_string())));
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let job = encode_job(5, &reference_text("node"));
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
        let result = measured::read(&reference_text("node")).unwrap();
        let mut fitted = blast_engine::fingerprint::fingerprint(&result).expect("fits");
        fitted.fits[0].simulated.pop();
        assert_eq!(decode_reply(&encode_reply(1, &Ok((result, Ok(fitted))))).map_err(|e| e.why), Err("a fingerprint without a fit for each pair"));
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(decode_reply(&trailing).is_err());
        assert!(decode_reply(&job).is_err(), "a job is not a reply");
        let (id, why) = decode_reply(&answer(b"\x02\xff")).expect("an unreadable job is answered");
        assert!(id == 0 && why.unwrap_err().to_string().contains("could not read"));
    }
}
