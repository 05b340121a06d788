//! The zip layer of .pt archives: opening any bytes and reading every record never panics
//! and never allocates past the limits.
#![no_main]

use crate::import::zip::PtZip;
use crate::import::Limits;
use libfuzzer_sys::fuzz_target;

// The archive reader, compiled from the compiler crate's sources (it only uses ember-runtime
// and zip), so fuzzing does not build MLIR/LLVM/CUDA with sanitizers.
#[path = "../../compiler/src/import/mod.rs"]
#[allow(dead_code)]
mod import;

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
