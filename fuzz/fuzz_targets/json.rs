//! The JSON entry point (and `parse_any`, which picks JSON or the DSL) on arbitrary text:
//! never panic, and an accepted scenario survives print -> parse.
#![no_main]

use blast_engine::dsl;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let from_json = dsl::from_json(text);
    let any = dsl::parse_any(text);
    if let Ok(scenario) = from_json.or(any) {
        assert_eq!(dsl::parse(&dsl::print(&scenario)).ok(), Some(scenario), "print -> parse changed an accepted scenario");
    }
});
