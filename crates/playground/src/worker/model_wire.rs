//! A model preset's replay, run by the engine worker (`model_host`): the page's commands and
//! the worker's updates, as bytes.
//!
//! The page posts a [`Request`]: open a replay of a configuration's variants, move its clock a
//! frame, step it, rewind it. The worker answers each with an [`Update`]: the clock and every
//! variant's view. A view carries its run's whole report only in the first update that has it
//! (the replay then only moves through it); the page keeps it ([`ViewForm::into_view`]).
//!
//! The format is postcard's, through serde's derives (`wire::put_whole`, `wire::take_whole`). The
//! engine's model types are serialized for JSON (the configuration and an entity's state tagged
//! by a field, reports without `Deserialize`), which postcard cannot read back: their forms
//! here name every field, so a new one does not compile until the wire carries it. Decoding is
//! total: bytes that are not a replay message give an error, never a panic.

use std::rc::Rc;

use blast_engine::expect::model::{self as model_expect, ModelExpectError, Placed};
use blast_engine::expect::Status;
use blast_engine::models::arena::{ArenaConfig, Role};
use blast_engine::models::descriptor::{DescriptorConfig, SlotState};
use blast_engine::models::shape_cache::{Capacity, ShapeConfig};
use blast_engine::models::{Entity, EntityState, ModelConfig, ModelReport, OpPoint};
use blast_engine::report::RelinkTotals;
use serde::{Deserialize, Serialize};

use crate::model_runner::{EntityView, VariantView, VerdictStep};
use crate::worker::wire::{put_whole, take_whole, DecodeError, MODEL};

/// What the page asks of the replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// A new replay of `variants` (indices among the model's variants), at time zero, and the
    /// preset's `expect` lines about them (`blast_engine::expect::model`), checked in the worker.
    Open {
        #[serde(with = "ModelConfigForm")]
        config: ModelConfig,
        variants: Vec<u32>,
        expectations: String,
    },
    /// Move the clock `advance_ms` virtual ms (`f64::INFINITY`: as far as a frame's work goes).
    Frame {
        advance_ms: f64,
    },
    Step,
    /// Back to time zero; the runs computed are kept.
    Rewind,
}

/// Commands for replay `run` (the page numbers its replays; updates name theirs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub run: u64,
    pub commands: Vec<Command>,
}

/// The replay after a request, or why the worker has none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Update {
    pub run: u64,
    pub error: Option<String>,
    pub clock_ms: f64,
    pub finished: bool,
    /// The longest run's virtual length, once every run is computed.
    pub length_ms: Option<f64>,
    pub views: Vec<ViewForm>,
    /// The preset's expectations against these views.
    pub expectations: Checked,
}

/// A model preset's expectations against the variants' runs as the views stand, as the page
/// shows them: each line's status and words, or why the lines do not parse.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    pub rows: Vec<CheckedRow>,
    pub unparsed: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckedRow {
    /// Its line's position among the expectations.
    pub index: u32,
    pub status: Status,
    /// The claim, without its `expect` keyword.
    pub claim: String,
    /// Unless it passed: what was expected (when it failed) and what was observed.
    pub detail: Option<String>,
}

impl Checked {
    /// `placed` (the parsed lines, or why they do not parse) against `views`: a claim whose
    /// variants have not all finished is pending.
    pub fn of(placed: &Result<Vec<Placed>, ModelExpectError>, views: &[Rc<VariantView>]) -> Checked {
        let placed = match placed {
            Ok(placed) => placed,
            Err(why) => return Checked { rows: Vec::new(), unparsed: Some(why.to_string()) },
        };
        let runs: Vec<(&str, &ModelReport)> = views.iter().filter_map(|v| Some((v.variant, v.result()?))).collect();
        let claims: Vec<_> = placed.iter().map(|p| p.expectation.clone()).collect();
        let rows = model_expect::evaluate(&claims, &runs)
            .into_iter()
            .filter_map(|o| {
                let p = placed.get(o.index)?;
                let text = p.expectation.to_string();
                let detail = (o.status != Status::Pass).then(|| {
                    let expected = if o.status == Status::Fail { format!("expected {} · ", p.expectation.expected()) } else { String::new() };
                    let observed = o.observed.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("; ");
                    format!("{expected}{observed}")
                });
                Some(CheckedRow { index: o.index as u32, status: o.status, claim: text.strip_prefix("expect ").unwrap_or(&text).to_string(), detail })
            })
            .collect();
        Checked { rows, unparsed: None }
    }
}

/// A variant's view on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewForm {
    /// Position among the model's variants (its name on the page).
    index: u32,
    now_ms: f64,
    /// The run's report, in the first update that has it only.
    report: Option<ReportForm>,
    revealed: u64,
    error: Option<String>,
    entities: Option<Vec<(EntityForm, u64)>>,
    verdicts: RelinkTotals,
    steps: Vec<(u64, u64, RelinkTotals)>,
}

impl ViewForm {
    /// Position among the model's variants.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// `view` as sent, its report included or not (`with_report`).
    pub fn of(view: &VariantView, with_report: bool) -> ViewForm {
        ViewForm {
            index: view.index as u32,
            now_ms: view.now_ms,
            report: view.report.as_deref().filter(|_| with_report).map(ReportForm::of),
            revealed: view.revealed as u64,
            error: view.error.clone(),
            entities: view.entities.as_ref().map(|list| list.iter().map(|e| (EntityForm::of(&e.entity), e.flash)).collect()),
            verdicts: view.verdicts,
            steps: view.steps.iter().map(|s| (s.from as u64, s.to as u64, s.verdicts)).collect(),
        }
    }

    /// The view on the page, for the model's `variants`; without a report in this update, the
    /// one `previous` (this variant's view in the last update of the replay) had.
    pub fn into_view(self, variants: &[&'static str], previous: Option<&VariantView>) -> Result<VariantView, DecodeError> {
        let variant = *variants.get(self.index as usize).ok_or(DecodeError { at: 0, why: "not a variant of this model" })?;
        let report = match self.report {
            Some(r) => Some(Rc::new(r.into_report())),
            None => previous.and_then(|p| p.report.clone()),
        };
        Ok(VariantView {
            variant,
            index: self.index as usize,
            now_ms: self.now_ms,
            report,
            revealed: self.revealed as usize,
            error: self.error,
            entities: self.entities.map(|list| list.into_iter().map(|(e, flash)| EntityView { entity: e.into_entity(), flash }).collect()),
            verdicts: self.verdicts,
            steps: self.steps.into_iter().map(|(from, to, verdicts)| VerdictStep { from: from as usize, to: to as usize, verdicts }).collect(),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ReportForm {
    model: String,
    variant: String,
    unit: String,
    value: f64,
    roles: Vec<(String, f64)>,
    verdicts: RelinkTotals,
    entities: Vec<EntityForm>,
    /// Each op point's (t_us, value, necessary, collateral, missed).
    timeline: Vec<(f64, f64, u64, u64, u64)>,
}

impl ReportForm {
    fn of(r: &ModelReport) -> ReportForm {
        let ModelReport { model, variant, unit, value, roles, verdicts, entities, timeline } = r;
        ReportForm {
            model: model.clone(),
            variant: variant.clone(),
            unit: unit.clone(),
            value: *value,
            roles: roles.clone(),
            verdicts: *verdicts,
            entities: entities.iter().map(EntityForm::of).collect(),
            timeline: timeline.iter().map(|p| (p.t_us, p.value, p.necessary, p.collateral, p.missed)).collect(),
        }
    }

    fn into_report(self) -> ModelReport {
        let ReportForm { model, variant, unit, value, roles, verdicts, entities, timeline } = self;
        ModelReport {
            model,
            variant,
            unit,
            value,
            roles,
            verdicts,
            entities: entities.into_iter().map(EntityForm::into_entity).collect(),
            timeline: timeline.into_iter().map(|(t_us, value, necessary, collateral, missed)| OpPoint { t_us, value, necessary, collateral, missed }).collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct EntityForm {
    name: String,
    #[serde(with = "EntityStateForm")]
    state: EntityState,
}

impl EntityForm {
    fn of(e: &Entity) -> EntityForm {
        EntityForm { name: e.name.clone(), state: e.state.clone() }
    }

    fn into_entity(self) -> Entity {
        Entity { name: self.name, state: self.state }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "ModelConfig")]
enum ModelConfigForm {
    ShapeCache(ShapeConfig),
    Arena(ArenaConfig),
    Descriptor(DescriptorConfig),
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "EntityState")]
enum EntityStateForm {
    Thread {
        role: Role,
        scoped_access: bool,
        ops: u64,
        handshakes: u64,
        deopts: u64,
    },
    RecordClass {
        #[serde(with = "CapacityForm")]
        capacity: Capacity,
        cached: Vec<u64>,
        hits: u64,
        misses: u64,
    },
    DescriptorSlot {
        #[serde(with = "SlotStateForm")]
        slot: SlotState,
        rebuilds: u64,
        discarded: u64,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Capacity")]
enum CapacityForm {
    NoCache,
    Bounded(u64),
    Unbounded,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "SlotState")]
enum SlotStateForm {
    Empty,
    Unregistered,
    Registered,
}

/// A message's bytes: its kind, then the message.
fn encode(message: &impl Serialize) -> Vec<u8> {
    put_whole(MODEL, message)
}

pub fn encode_request(request: &Request) -> Vec<u8> {
    encode(request)
}

pub fn decode_request(bytes: &[u8]) -> Result<Request, DecodeError> {
    take_whole(bytes, MODEL)
}

pub fn encode_update(update: &Update) -> Vec<u8> {
    encode(update)
}

pub fn decode_update(bytes: &[u8]) -> Result<Update, DecodeError> {
    take_whole(bytes, MODEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_runner::tests::replay_to_end;
    use crate::model_runner::ModelRunner;
    use blast_engine::models;

    #[test]
    fn every_model_config_crosses_the_wire() {
        for preset in models::MODEL_PRESETS {
            let request = Request {
                run: 3,
                commands: vec![
                    Command::Open { config: preset.config(), variants: vec![0, 1], expectations: preset.expectations.into() },
                    Command::Step,
                    Command::Frame { advance_ms: f64::INFINITY },
                    Command::Rewind,
                ],
            };
            assert_eq!(decode_request(&encode_request(&request)), Ok(request), "{}", preset.id);
        }
    }

    /// Every family's entities and reports come back as the engine made them.
    #[test]
    fn finished_views_cross_the_wire_whole() {
        for preset in models::MODEL_PRESETS {
            let config = preset.config();
            let mut runner = ModelRunner::new(config.clone(), config.variants());
            replay_to_end(&mut runner);
            let views: Vec<ViewForm> = runner.views().iter().map(|v| ViewForm::of(v, true)).collect();
            let placed = blast_engine::expect::model::parse(preset.expectations, &config);
            let expectations = Checked::of(&placed, runner.views());
            assert!(!expectations.rows.is_empty() && expectations.rows.iter().all(|r| r.status == Status::Pass), "{}: {expectations:?}", preset.id);
            let update = Update { run: 1, error: None, clock_ms: 2.0, finished: true, length_ms: Some(2.0), views, expectations };
            let back = decode_update(&encode_update(&update)).expect("an update");
            assert_eq!(back, update);
            for (form, view) in back.views.into_iter().zip(runner.views()) {
                assert_eq!(&form.into_view(config.variants(), None).expect("a view"), &**view, "{}", preset.id);
            }
        }
    }

    #[test]
    fn a_report_sent_once_is_kept_and_bad_bytes_are_errors() {
        let config = models::find("descriptor_treeMap").unwrap().config();
        let mut runner = ModelRunner::new(config.clone(), config.variants());
        replay_to_end(&mut runner);
        let first = &runner.views()[0];
        let again = ViewForm::of(first, false).into_view(config.variants(), Some(first)).unwrap();
        assert_eq!(&again, &**first, "the report comes from the previous view");
        let mut far = ViewForm::of(first, false);
        far.index = 99;
        assert!(far.into_view(config.variants(), None).is_err());
        assert!(decode_update(b"\x04\xff").is_err());
        assert!(decode_update(&encode_request(&Request { run: 1, commands: Vec::new() })).is_err(), "a request is not an update");
    }
}
