//! The `schema` fuzz target: the property of fuzz/checks/schema.rs on every input.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../checks/schema.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = check::check(data) {
        panic!("{e}");
    }
});
