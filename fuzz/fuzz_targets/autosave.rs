//! The autosave decoder on arbitrary stored text: never panic, and an accepted save encodes
//! back to a save that decodes to the same thing.
#![no_main]

use blast_playground::storage;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|raw: &str| {
    if let Ok(saved) = storage::decode(raw) {
        let encoded = storage::encode(&saved).expect("an accepted save encodes");
        assert_eq!(storage::decode(&encoded).ok(), Some(saved), "encode -> decode changed an accepted save");
    }
});
