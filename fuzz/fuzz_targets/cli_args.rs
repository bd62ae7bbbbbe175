//! The CLI's option parsing on arbitrary argument lists: never panic. (Only parsing: the
//! commands themselves run presets or read files, which is not what a hostile CI config
//! can break.)
#![no_main]

use blast_cli::parse_options;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|args: Vec<String>| {
    let _ = parse_options(&args);
});
