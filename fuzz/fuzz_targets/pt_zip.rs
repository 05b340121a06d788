//! The zip layer of .pt archives: opening any bytes and reading every record never panics
//! and never allocates past the limits.
#![no_main]

use ember_compiler::import::zip::PtZip;
use ember_compiler::import::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_total_size: 64 << 20,
        max_entry_size: 16 << 20,
        ..Limits::default()
    };
    if let Ok(mut zip) = PtZip::open(data, &limits) {
        let names: Vec<String> = zip.records().iter().map(|r| r.name.clone()).collect();
        for name in names {
            let _ = zip.read(&name);
        }
    }
});
