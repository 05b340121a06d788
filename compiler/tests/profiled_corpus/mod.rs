//! Shared by the fuser's corpus tests: the profiled graphs PyTorch's TensorExpr fuser saw, and
//! running registered passes over a graph.

use std::path::{Path, PathBuf};

use ember_compiler::passes::{lookup, PassContext};
use ember_dialects::Graph;

/// The folder of the profiled corpus graphs.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/corpus/graphs/profiled")
}

/// Each `X.te.profiling.ir` of the corpus as (`X`, its path), sorted.
pub fn te_cases() -> Vec<(String, PathBuf)> {
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(dir())
        .expect("the profiled corpus")
        .map(|e| e.expect("a readable entry").path())
        .filter_map(|p| {
            let name = p
                .file_name()?
                .to_str()?
                .strip_suffix(".te.profiling.ir")?
                .to_string();
            Some((name, p))
        })
        .collect();
    cases.sort();
    cases
}

/// Runs the passes `names` in order, verifying the graph after each.
pub fn run_passes(g: &mut Graph, names: &[&str], case: &str) {
    for name in names {
        let pass = lookup(name).expect("registered pass");
        (pass.run)(g, &mut PassContext::unlimited(pass.name))
            .unwrap_or_else(|e| panic!("{case}: {name}: {e}"));
        if let Err(errors) = ember_dialects::verify::verify(g) {
            panic!("{case}: after {name} the graph does not verify: {errors:?}\n{g}");
        }
    }
}
