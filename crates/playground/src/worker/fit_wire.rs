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
//! The format is `wire`'s: lengths and numbers as LEB128, floats as 8 bytes, strings as their
//! length and UTF-8; the encoder destructures every struct, so a new field does not compile
//! until it is carried. Decoding is total: bytes that are not a fit message give an error, never a
//! panic.

use std::fmt;

use blast_engine::fingerprint::{Fingerprint, FingerprintError, Fitting, Machine, Pair, PolicyFit, ProbeResult, ProbeRow};

use crate::worker::wire::{DecodeError, Read, Reader, Writer, FIT};

/// A fit job as the page posts it: its number (answers name it) and the probe result.
pub fn encode_job(id: u64, result: &ProbeResult) -> Vec<u8> {
    let ProbeResult { schema, runtime, version, command, mode, rows, machine } = result;
    let mut w = Writer(Vec::new());
    w.num(FIT);
    w.num(id);
    for s in [schema, runtime, version, command, mode] {
        w.str(s);
    }
    w.num(rows.len() as u64);
    for ProbeRow { workload, param, iterations, reps, min_ns, median_ns, max_ns, wide, low_rel, low_wide } in rows {
        w.str(workload);
        w.opt_num(*param);
        w.num(*iterations);
        w.num(u64::from(*reps));
        w.f64(*min_ns);
        w.f64(*median_ns);
        w.f64(*max_ns);
        w.bool(*wide);
        opt_f64(&mut w, *low_rel);
        w.bool(*low_wide);
    }
    w.bool(machine.is_some());
    if let Some(Machine { cpus, cpu_model, load_average_1min_start, load_average_1min }) = machine {
        w.opt_num(cpus.map(u64::from));
        w.opt(cpu_model);
        opt_f64(&mut w, *load_average_1min_start);
        opt_f64(&mut w, *load_average_1min);
    }
    w.0
}

pub fn decode_job(bytes: &[u8]) -> Result<(u64, ProbeResult), DecodeError> {
    Reader::whole(bytes, FIT, read_job)
}

fn read_job(r: &mut Reader) -> Read<(u64, ProbeResult)> {
    let id = r.num()?;
    let (schema, runtime, version, command, mode) = (r.str()?, r.str()?, r.str()?, r.str()?, r.str()?);
    let rows = r.list(|r| {
        let (workload, param, iterations) = (r.str()?, r.opt_num()?, r.num()?);
        let reps = u32::try_from(r.num()?).map_err(|_| "a count is too large")?;
        let (min_ns, median_ns, max_ns, wide) = (r.f64()?, r.f64()?, r.f64()?, r.bool()?);
        let (low_rel, low_wide) = (read_opt_f64(r)?, r.bool()?);
        Ok(ProbeRow { workload, param, iterations, reps, min_ns, median_ns, max_ns, wide, low_rel, low_wide })
    })?;
    let machine = if r.bool()? {
        let cpus = r.opt_num()?.map(|n| u32::try_from(n).map_err(|_| "a count is too large")).transpose()?;
        let cpu_model = r.opt()?;
        let (load_average_1min_start, load_average_1min) = (read_opt_f64(r)?, read_opt_f64(r)?);
        Some(Machine { cpus, cpu_model, load_average_1min_start, load_average_1min })
    } else {
        None
    };
    Ok((id, ProbeResult { schema, runtime, version, command, mode, rows, machine }))
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
    let mut w = Writer(Vec::new());
    w.num(FIT);
    w.num(id);
    match fitted {
        Err(why) => {
            w.num(1);
            w.str(why);
        }
        Ok(Fingerprint { runtime, version, load_start, load_end, pairs, fits }) => {
            w.num(0);
            w.str(runtime);
            w.str(version);
            opt_f64(&mut w, *load_start);
            opt_f64(&mut w, *load_end);
            w.num(pairs.len() as u64);
            for Pair { workload, param, measured, spread, readable } in pairs {
                w.str(workload);
                w.opt_num(*param);
                w.f64(*measured);
                w.f64(*spread);
                w.bool(*readable);
            }
            w.num(fits.len() as u64);
            for PolicyFit { policy, write_ns, relink_ns, rms_log10, simulated } in fits {
                w.policy(*policy);
                w.f64(*write_ns);
                w.f64(*relink_ns);
                w.f64(*rms_log10);
                w.num(simulated.len() as u64);
                for v in simulated {
                    w.f64(*v);
                }
            }
        }
    }
    w.0
}

/// The id of the job answered, and its fit or why there is none.
pub fn decode_reply(bytes: &[u8]) -> Result<(u64, Result<Fingerprint, FitRefusal>), DecodeError> {
    Reader::whole(bytes, FIT, read_reply)
}

fn read_reply(r: &mut Reader) -> Read<(u64, Result<Fingerprint, FitRefusal>)> {
    let id = r.num()?;
    let fitted = match r.num()? {
        1 => Err(FitRefusal::Refused(r.str()?)),
        0 => {
            let (runtime, version) = (r.str()?, r.str()?);
            let (load_start, load_end) = (read_opt_f64(r)?, read_opt_f64(r)?);
            let pairs = r.list(|r| {
                let (workload, param) = (r.str()?, r.opt_num()?);
                Ok(Pair { workload, param, measured: r.f64()?, spread: r.f64()?, readable: r.bool()? })
            })?;
            let fits = r.list(|r| {
                let policy = r.policy()?;
                let (write_ns, relink_ns, rms_log10) = (r.f64()?, r.f64()?, r.f64()?);
                let simulated = r.list(|r| r.f64())?;
                Ok(PolicyFit { policy, write_ns, relink_ns, rms_log10, simulated })
            })?;
            // The panel reads `best()` (the first fit) and one simulated value per pair.
            if fits.is_empty() || fits.iter().any(|f| f.simulated.len() != pairs.len()) {
                return Err("a fingerprint without a fit for each pair");
            }
            Ok(Fingerprint { runtime, version, load_start, load_end, pairs, fits })
        }
        _ => return Err("bad fit tag"),
    };
    Ok((id, fitted))
}

/// An optional float as a flag and, when set, its 8 bytes.
fn opt_f64(w: &mut Writer, v: Option<f64>) {
    w.bool(v.is_some());
    if let Some(v) = v {
        w.f64(v);
    }
}

fn read_opt_f64(r: &mut Reader) -> Read<Option<f64>> {
    Ok(if r.bool()? { Some(r.f64()?) } else { None })
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
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(decode_reply(&trailing).is_err());
        assert!(decode_reply(&job).is_err(), "a job is not a reply");
        let (id, why) = decode_reply(&answer(b"\x02\xff")).expect("an unreadable job is answered");
        assert!(id == 0 && why.unwrap_err().to_string().contains("could not read"));
    }
}
