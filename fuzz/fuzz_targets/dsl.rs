//! The DSL parser and validator on arbitrary text: never panic, and whatever parses prints
//! back to text that parses to the same scenario.
#![no_main]

use blast_engine::dsl;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(scenario) = dsl::parse(text) {
        let printed = dsl::print(&scenario);
        let again = dsl::parse(&printed).unwrap_or_else(|e| panic!("printed scenario does not parse: {e}\n{printed}"));
        assert_eq!(again, scenario, "print -> parse changed the scenario:\n{printed}");
    }
});
