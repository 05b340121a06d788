//! The `graph_text` fuzz target: the property of fuzz/checks/graph_text.rs on every input.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../checks/graph_text.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = check::check(data) {
        panic!("{e}");
    }
});
