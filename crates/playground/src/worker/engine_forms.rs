//! The wire's serde form of the engine types whose own serde is shaped for JSON: a field left
//! out when empty (`SiteStats::evictions`, `SiteReport::receivers`, `RelinkText::receiver`),
//! one never written (`UnitReport::loop_index`), or an enum tagged by a field (`Observed`,
//! `Event`), none of which postcard can read back (it has no field names to go by). Each form is
//! serde's `remote` derive of the type: it names every field, so a new field does not compile
//! until the wire carries it, and the JSON stays as it is.

use blast_engine::expect::{Cause, Metric, Observed, Outcome, Status};
use blast_engine::report::{Phase, ReceiverReport, RelinkText, SiteReport, SiteState, SiteStats, Verdict};
use blast_engine::scenario::{Event, MetaKind};
use blast_engine::sim::UnitReport;
use blast_engine::{jit::Tier, jit::UnitStats, Policy};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
#[serde(remote = "SiteStats")]
struct SiteStatsForm {
    fast_calls: u64,
    pic_calls: u64,
    selections: u64,
    fallback_calls: u64,
    stale_calls: u64,
    necessary: u64,
    collateral: u64,
    missed: u64,
    evictions: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "SiteReport")]
pub(crate) struct SiteReportForm {
    name: String,
    class: String,
    method: String,
    state: SiteState,
    target: String,
    #[serde(with = "SiteStatsForm")]
    stats: SiteStats,
    receivers: Vec<ReceiverReport>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "RelinkText")]
pub(crate) struct RelinkTextForm {
    site: String,
    phase: Phase,
    op: u32,
    t_ms: f64,
    event: Option<usize>,
    event_label: Option<String>,
    domain: String,
    verdict: Verdict,
    old_target: String,
    new_target: String,
    receiver: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "UnitReport")]
pub(crate) struct UnitReportForm {
    name: String,
    loop_index: Option<usize>,
    tier: Tier,
    past_cutoff: bool,
    stats: UnitStats,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Observed")]
enum ObservedForm {
    Relinked { policy: Policy, sites: Vec<(String, u64)>, unattributed: Vec<(String, u64)> },
    Figure { policy: Policy, metric: Metric, value: f64 },
    Pair { metric: Metric, a: Policy, a_value: f64, b: Policy, b_value: f64, ratio: f64 },
    Deviation { value: f64, reference: f64, deviation_pct: f64 },
    Waiting { policy: Policy },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Outcome")]
struct OutcomeForm {
    index: usize,
    status: Status,
    #[serde(with = "observed_list")]
    observed: Vec<Observed>,
    causes: Vec<Cause>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Event")]
pub(crate) enum EventForm {
    Write { class: String, method: String },
    Replace { class: String, kind: MetaKind },
    Remove { class: String },
    PerInstance { class: String },
    Load { class: String, parent: Option<String>, methods: Vec<String> },
    InvalidateAll,
    Unattributed,
}

/// A `with` module for a `Vec` of a type through its form (serde's remote derive serves one
/// value, not a list of them).
macro_rules! list_of {
    ($module:ident, $ty:ty, $form:ident, $form_name:literal) => {
        pub(crate) mod $module {
            use super::*;

            struct Borrowed<'a>(&'a $ty);

            impl Serialize for Borrowed<'_> {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    $form::serialize(self.0, s)
                }
            }

            #[derive(Deserialize)]
            struct Owned(#[serde(with = $form_name)] $ty);

            pub(crate) fn serialize<S: serde::Serializer>(list: &[$ty], s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(list.iter().map(Borrowed))
            }

            /// Into a `Vec`, or a `Cow` of a slice (which the encoder fills with a borrowed one).
            pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>, T: From<Vec<$ty>>>(d: D) -> Result<T, D::Error> {
                Ok(T::from(Vec::<Owned>::deserialize(d)?.into_iter().map(|o| o.0).collect::<Vec<$ty>>()))
            }
        }
    };
}

list_of!(observed_list, Observed, ObservedForm, "ObservedForm");
list_of!(relinks, RelinkText, RelinkTextForm, "RelinkTextForm");
list_of!(outcomes, Outcome, OutcomeForm, "OutcomeForm");
