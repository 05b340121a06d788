//! The whole load (`import::load_module` with default options) on any bytes: zip, pickles,
//! code/ compiled through the frontend, objects rebuilt, `__setstate__` run. An error or a
//! module, never a panic, a hang or an allocation past the limits.
#![no_main]

use ember_compiler::import::{load_module, LoadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(module) = load_module(data, &LoadOptions::default()) {
        // What ember-opt does with a loaded archive: every method's graph printed.
        for f in module.all_methods() {
            let _ = f.graph.to_string();
        }
    }
});
