//! Model knob parsing (what a `#m=1.` link or the autosave feeds `model_knobs::set_all`) and
//! resolving a model link, on arbitrary preset names, knob names and values: never panic.
#![no_main]

use arbitrary::Arbitrary;
use blast_engine::models::MODEL_PRESETS;
use blast_playground::model_knobs;
use blast_playground::model_mode::{self, ModelLink};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    preset: u8,
    knobs: Vec<(String, String)>,
    variants: Vec<String>,
}

fuzz_target!(|input: Input| {
    let preset = &MODEL_PRESETS[input.preset as usize % MODEL_PRESETS.len()];
    let _ = model_knobs::set_all(&preset.config(), &input.knobs);
    let link = ModelLink { preset: preset.id.to_string(), knobs: input.knobs, variants: input.variants };
    let _ = model_mode::resolve(&link);
});
