//! The restricted unpickler on any bytes: an error or a value, never a panic, a hang or a
//! call of anything outside the allowlist.
#![no_main]

use crate::import::pickle::unpickle;
use crate::import::storage::NoStorages;
use crate::import::Limits;
use libfuzzer_sys::fuzz_target;

// The archive reader, compiled from the compiler crate's sources (it only uses ember-runtime
// and zip), so fuzzing does not build MLIR/LLVM/CUDA with sanitizers.
#[path = "../../compiler/src/import/mod.rs"]
#[allow(dead_code)]
mod import;

fuzz_target!(|data: &[u8]| {
    let _ = unpickle(data, &mut NoStorages, &Limits::default());
});
