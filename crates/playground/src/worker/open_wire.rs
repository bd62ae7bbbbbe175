//! The autosave and a share link, opened by the engine worker. The page takes them from local
//! storage and the address bar as text and posts them; the worker reads them (`storage::decode`:
//! serde_json's reader of the entry, the long texts inflated; `share::decode`: base64url,
//! inflate, and a model link's checks) and answers with the session and what the link carries,
//! or why not. So the page holds no JSON reader and no inflate: with them, reading was 32 KiB of
//! the page's module gzipped (`bash scripts/size-report.sh` with both cut off, 2026-12-07).
//!
//! The page posts `(OPEN, id, Sealed)`; the worker answers `(OPEN, id, Unsealed)`, postcard's
//! form through serde's derives (`wire::put_whole`, `wire::take_whole`). A link's refusal crosses
//! as its message (`share::LinkError`'s display, all the page shows of it). Decoding is total:
//! bytes that are not an open message give an error, never a panic.

use serde::{Deserialize, Serialize};

use crate::share::{self, Link};
use crate::storage::{self, SaveError, Saved};
use crate::worker::wire::{put_whole, take_whole, DecodeError, OPEN};

/// What the page found: the autosave's stored entry and the URL fragment (with its `#`), each
/// as it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sealed {
    pub autosave: Option<String>,
    pub link: Option<String>,
}

/// What they hold, or why they cannot be opened; `None` where nothing was sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Unsealed {
    pub autosave: Option<Result<Saved, SaveError>>,
    /// What the link carries (`None`: nothing the page opens), or why it is refused, in words.
    pub link: Option<Result<Option<Link>, String>>,
}

/// The worker's work.
pub fn open(sealed: &Sealed) -> Unsealed {
    Unsealed {
        autosave: sealed.autosave.as_deref().map(storage::decode),
        link: sealed.link.as_deref().map(|fragment| share::decode(fragment).map_err(|e| e.to_string())),
    }
}

pub fn encode_job(id: u64, sealed: &Sealed) -> Vec<u8> {
    put_whole(OPEN, &(id, sealed))
}

pub fn decode_job(bytes: &[u8]) -> Result<(u64, Sealed), DecodeError> {
    take_whole(bytes, OPEN)
}

/// The worker's whole turn for a job: bytes in, bytes out. A job it cannot read is answered
/// under id 0, which no job has, with nothing opened.
pub fn answer(job: &[u8]) -> Vec<u8> {
    match decode_job(job) {
        Ok((id, sealed)) => encode_reply(id, &open(&sealed)),
        Err(_) => encode_reply(0, &Unsealed::default()),
    }
}

pub fn encode_reply(id: u64, unsealed: &Unsealed) -> Vec<u8> {
    put_whole(OPEN, &(id, unsealed))
}

/// The id of the job answered, and what was opened.
pub fn decode_reply(bytes: &[u8]) -> Result<(u64, Unsealed), DecodeError> {
    take_whole(bytes, OPEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chrome::Theme;
    use crate::model_mode::ModelLink;
    use crate::playback::Speed;
    use crate::share::LinkView;
    use crate::test_texts::chain;
    use blast_engine::Policy;

    fn round_trip(sealed: Sealed) -> Unsealed {
        assert_eq!(decode_job(&encode_job(5, &sealed)), Ok((5, sealed.clone())));
        let (id, unsealed) = decode_reply(&answer(&encode_job(5, &sealed))).expect("a reply");
        assert_eq!(id, 5);
        unsealed
    }

    #[test]
    fn an_autosave_and_a_link_open_in_the_worker_as_storage_and_share_read_them() {
        let mut saved = Saved::new(chain(2_000), vec![Policy::Exact], Speed::Max, Theme::Dark, Some("hotLoop_baseline".into()));
        saved.model = Some(ModelLink { preset: "records_rotating11".into(), knobs: vec![("capacity".into(), "12".into())], variants: vec!["fifo".into()] });
        saved.own_text = Some(chain(3));
        let entry = storage::encode(&saved).unwrap();
        assert!(entry.contains("\"deflate\""), "a long text is packed in the entry");
        let view = LinkView { speed: Some(Speed::Max), site: Some("s".into()) };
        let fragment = format!("#{}", share::encode(&chain(400), &[Policy::Global], &view).unwrap());
        let unsealed = round_trip(Sealed { autosave: Some(entry), link: Some(fragment.clone()) });
        assert_eq!(unsealed.autosave, Some(Ok(saved)));
        assert_eq!(unsealed.link, Some(share::decode(&fragment).map_err(|e| e.to_string())));
        assert!(matches!(unsealed.link, Some(Ok(Some(Link::Scenario(ref shared)))) if shared.text == chain(400) && shared.view == view));
        // A model link and a trace link cross whole too; nothing sent, nothing opened.
        let model = format!("#{}", share::encode_model(&ModelLink { preset: "records_rotating11".into(), knobs: Vec::new(), variants: Vec::new() }));
        assert!(matches!(round_trip(Sealed { autosave: None, link: Some(model) }).link, Some(Ok(Some(Link::Model(_))))));
        let trace = format!("#{}", share::encode_trace("x.log", "v8-version,1\n", None).unwrap());
        assert!(matches!(round_trip(Sealed { autosave: None, link: Some(trace) }).link, Some(Ok(Some(Link::Trace(_))))));
        assert_eq!(round_trip(Sealed::default()), Unsealed::default());
    }

    #[test]
    fn what_cannot_be_opened_comes_back_with_why() {
        let unsealed = round_trip(Sealed { autosave: Some("{\"version\": 1, \"scenario_text\": ".into()), link: Some("#s=2.AAAA".into()) });
        assert!(matches!(unsealed.autosave, Some(Err(SaveError::NotASession(_)))), "{unsealed:?}");
        let why = unsealed.link.expect("the link's answer").expect_err("refused");
        assert_eq!(why, share::decode("#s=2.AAAA").unwrap_err().to_string());
        assert!(why.starts_with("The link's scenario was not loaded"), "{why}");
        // A fragment that carries nothing the page opens.
        assert_eq!(round_trip(Sealed { autosave: None, link: Some("#x=1".into()) }).link, Some(Ok(None)));
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let job = encode_job(
            3,
            &Sealed {
                autosave: Some(storage::encode(&Saved::new(chain(30), Vec::new(), Speed::Max, Theme::Auto, None)).unwrap()),
                link: Some("#s=1.Y2xhc3MgQQ".into()),
            },
        );
        let reply = answer(&job);
        crate::worker::wire::assert_damage_refused(&[(&job, &|b| decode_job(b).is_ok()), (&reply, &|b| decode_reply(b).is_ok())]);
        assert_eq!(decode_reply(&answer(&[OPEN as u8, 0xff])), Ok((0, Unsealed::default())));
    }
}
