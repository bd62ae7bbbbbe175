//! Share links and autosave entries, made by the engine worker. Both deflate a text (a link's
//! scenario, trace log or class tree; an autosave's long texts, `storage::PACK_ABOVE`), and the
//! compressor lives only in the worker: on the page it was 6.2 KiB of the module gzipped
//! (`bash scripts/size-report.sh` with the compressor cut off, 2026-12-07), and a long text's
//! deflate was a task of the page's (a 3.5 MB paste: ~35 ms whole, which the page spread over
//! several tasks).
//!
//! The page posts `(PACK, id, PackJob)`; the worker answers `(PACK, id, Packed)`. The format is
//! postcard's, through serde's derives (`wire::put_whole`, `wire::take_whole`): a `Saved` crosses
//! it with its texts as they are (`storage::Saved`'s serde form packs only in JSON). Decoding is
//! total: bytes that are not a pack message give an error, never a panic.

use serde::{Deserialize, Serialize};

use crate::share::{LinkSource, TooBigForLink};
use crate::storage::{self, SaveError, Saved};
use crate::worker::wire::{put_whole, take_whole, DecodeError, PACK};

/// What the page asks the worker to make.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PackJob {
    /// The first of these links that fits (a trace's log, else its derived scenario's).
    Links(Vec<LinkSource>),
    /// The autosave entry of a session.
    Autosave(Box<Saved>),
}

/// What the worker made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Packed {
    /// A fragment (without `#`) per link tried, in order: every one but the last too big for a
    /// link, the last the one that fits (or too big as well).
    Links(Vec<Result<String, TooBigForLink>>),
    /// The entry to store, or why the session cannot be saved.
    Autosave(Result<String, SaveError>),
}

/// The worker's work: deflating, and the link's or the entry's limits.
pub fn pack(job: &PackJob) -> Packed {
    match job {
        PackJob::Links(sources) => {
            let mut links = Vec::new();
            for source in sources {
                let link = source.encode();
                let fits = link.is_ok();
                links.push(link);
                if fits {
                    break;
                }
            }
            Packed::Links(links)
        }
        PackJob::Autosave(saved) => Packed::Autosave(storage::encode(saved)),
    }
}

pub fn encode_job(id: u64, job: &PackJob) -> Vec<u8> {
    put_whole(PACK, &(id, job))
}

pub fn decode_job(bytes: &[u8]) -> Result<(u64, PackJob), DecodeError> {
    take_whole(bytes, PACK)
}

/// The worker's whole turn for a job: bytes in, bytes out. A job it cannot read is answered
/// under id 0, which no job has (`packer::Packer` numbers them from 1), with nothing made.
pub fn answer(job: &[u8]) -> Vec<u8> {
    match decode_job(job) {
        Ok((id, job)) => encode_reply(id, &pack(&job)),
        Err(_) => encode_reply(0, &Packed::Links(Vec::new())),
    }
}

pub fn encode_reply(id: u64, packed: &Packed) -> Vec<u8> {
    put_whole(PACK, &(id, packed))
}

/// The id of the job answered, and what was made.
pub fn decode_reply(bytes: &[u8]) -> Result<(u64, Packed), DecodeError> {
    take_whole(bytes, PACK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chrome::Theme;
    use crate::playback::Speed;
    use crate::share::{self, Link, LinkView};
    use crate::test_texts::chain;
    use crate::trace_lab::protocol::ClassTree;
    use blast_engine::Policy;

    fn round_trip(job: &PackJob) -> Packed {
        let (id, back) = decode_job(&encode_job(7, job)).expect("a job reads back");
        assert_eq!((id, &back), (7, job));
        let (id, packed) = decode_reply(&answer(&encode_job(7, job))).expect("a reply reads back");
        assert_eq!(id, 7);
        packed
    }

    #[test]
    fn a_link_made_in_the_worker_is_the_one_share_makes_and_opens() {
        let text = chain(300);
        let view = LinkView { speed: Some(Speed::Max), site: None };
        let source = LinkSource::Scenario { text: text.clone(), policies: vec![Policy::Global, Policy::Exact], view: view.clone() };
        let Packed::Links(links) = round_trip(&PackJob::Links(vec![source])) else { panic!("links") };
        let made = share::encode(&text, &[Policy::Global, Policy::Exact], &view);
        assert_eq!(links, vec![made.clone()]);
        let Ok(Some(Link::Scenario(shared))) = share::decode(&format!("#{}", made.unwrap())) else { panic!("opens") };
        assert_eq!((shared.text, shared.view), (text, view));
    }

    #[test]
    fn links_are_tried_in_turn_until_one_fits() {
        let log = "x".repeat(share::MAX_LINK_TEXT + 1);
        let trace = LinkSource::Trace { name: "big.log".into(), log, tree: Some(ClassTree { name: "tree".into(), text: "A\n".into() }) };
        let scenario = LinkSource::Scenario { text: chain(3), policies: Vec::new(), view: LinkView::default() };
        let Packed::Links(links) = round_trip(&PackJob::Links(vec![trace.clone(), scenario.clone(), scenario])) else { panic!("links") };
        assert_eq!(links.len(), 2, "stops at the first that fits");
        assert_eq!(links[0], Err(TooBigForLink { text: share::MAX_LINK_TEXT + 1 + 2, fragment: None }));
        assert!(links[1].as_ref().is_ok_and(|f| f.starts_with("s=2.")));
    }

    #[test]
    fn an_autosave_made_in_the_worker_is_the_entry_storage_writes_and_its_texts_cross_whole() {
        let mut saved = Saved::new(chain(2_000), vec![Policy::Hierarchy], Speed::Max, Theme::Dark, None);
        saved.own_text = Some("class A { m }".into());
        assert!(saved.scenario_text.len() > storage::PACK_ABOVE);
        let Packed::Autosave(entry) = round_trip(&PackJob::Autosave(Box::new(saved.clone()))) else { panic!("an entry") };
        assert_eq!(entry, storage::encode(&saved));
        let entry = entry.unwrap();
        assert!(entry.contains("\"deflate\"") && entry.len() * 2 < saved.scenario_text.len(), "packed in the entry: {}", entry.len());
        assert_eq!(storage::decode(&entry), Ok(saved.clone()));
        // On the wire the text is itself (postcard is not human-readable: no packing there).
        assert!(encode_job(1, &PackJob::Autosave(Box::new(saved.clone()))).windows(40).any(|w| w == &saved.scenario_text.as_bytes()[..40]));
        // Too big even packed: why, for the page to say.
        saved.scenario_text = crate::test_texts::undeflatable(120_000);
        let Packed::Autosave(Err(SaveError::TooLarge { bytes, .. })) = round_trip(&PackJob::Autosave(Box::new(saved.clone()))) else { panic!("refused") };
        assert_eq!(bytes, saved.scenario_text.len());
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let job = encode_job(3, &PackJob::Links(vec![LinkSource::Scenario { text: chain(20), policies: Vec::new(), view: LinkView::default() }]));
        let reply = answer(&job);
        crate::worker::wire::assert_damage_refused(&[(&job, &|b| decode_job(b).is_ok()), (&reply, &|b| decode_reply(b).is_ok())]);
        assert!(decode_reply(&[PACK as u8, 0xff]).is_err());
        // A job the worker cannot read: answered under id 0 with nothing made.
        assert_eq!(decode_reply(&answer(&[PACK as u8, 0xff])), Ok((0, Packed::Links(Vec::new()))));
    }
}
