//! The whole archive reader on any bytes (seed it with test/pt/*.pt and test/pt/malformed/).
#![no_main]

use crate::import::{read_archive, Limits};
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
    let _ = read_archive(data, &limits);
});
