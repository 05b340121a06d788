//! The restricted unpickler on any bytes: an error or a value, never a panic, a hang or a
//! call of anything outside the allowlist.
#![no_main]

use ember_compiler::import::pickle::unpickle;
use ember_compiler::import::storage::NoStorages;
use ember_compiler::import::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = unpickle(data, &mut NoStorages, &Limits::default());
});
