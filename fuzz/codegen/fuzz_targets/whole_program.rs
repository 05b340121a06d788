//! A random TorchScript program (compiler/tests/random_programs.rs) drawn from the input's
//! bytes, compiled whole in process: every call must end as the interpreter's does, with the
//! same values or the same error (the same check as the fixed-seed test whole_random.rs).
#![no_main]

#[path = "../../../compiler/tests/jit_support/mod.rs"]
mod jit_support;
#[path = "../../../compiler/tests/random_programs.rs"]
mod random_programs;

use jit_support::Rng;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = random_programs::Gen::program(Rng::from_bytes(data));
    if let Err(e) = random_programs::check_program(&source) {
        panic!("{e}\n{source}");
    }
});
