//! The whole archive reader on any bytes (seed it with test/pt/*.pt and test/pt/malformed/).
#![no_main]

use ember_compiler::import::{read_archive, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_total_size: 64 << 20,
        max_entry_size: 16 << 20,
        ..Limits::default()
    };
    let _ = read_archive(data, &limits);
});
