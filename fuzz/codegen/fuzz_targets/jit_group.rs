//! A random elementwise group (compiler/tests/random_groups.rs) drawn from the input's bytes,
//! compiled by the JIT for one of this machine's CPU forms: its results must match the
//! interpreter's (the same check as the fixed-seed test jit_random.rs).
#![no_main]

#[path = "../../../compiler/tests/jit_support/mod.rs"]
mod jit_support;
#[path = "../../../compiler/tests/random_groups.rs"]
mod random_groups;

use ember_runtime::ops::cpu::available_levels;
use jit_support::Rng;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rng = Rng::from_bytes(data);
    let isa = *rng.pick(&available_levels());
    let (src, inputs) = random_groups::random_case(&mut rng);
    random_groups::check_case(&src, &inputs, isa, "fuzz input");
});
