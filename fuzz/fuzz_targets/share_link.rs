//! The share-link decoder (`#s=1.` scenario links, `#m=1.` model links) on arbitrary
//! fragments: never panic. A stranger's link is the most hostile input the playground reads.
#![no_main]

use blast_playground::share;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|fragment: &str| {
    let _ = share::decode(fragment);
});
