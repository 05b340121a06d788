//! Random elementwise groups (random_groups.rs, fixed seed) compiled by the JIT and compared
//! with the interpreter. Each graph is compiled for one CPU form, in turn.
//! `EMBER_JIT_RANDOM_GRAPHS=N` runs more graphs (and `EMBER_JIT_RANDOM_SEED` another seed).

use crate::jit_support::Rng;
use crate::random_groups::{check_case, random_case};

use ember_runtime::ops::cpu::available_levels;

#[test]
fn random_elementwise_groups_match_the_interpreter() {
    let count: usize = std::env::var("EMBER_JIT_RANDOM_GRAPHS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let seed: u64 = std::env::var("EMBER_JIT_RANDOM_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20261127);
    let levels = available_levels();
    let mut rng = Rng::new(seed);
    let mut refused = 0;
    let mut several = 0;
    for i in 0..count {
        let (src, inputs) = random_case(&mut rng);
        // A reduction over several dimensions (their list has a comma).
        several += src
            .lines()
            .any(|l| l.contains("prim::ListConstruct(") && l.contains(", "))
            as usize;
        let isa = levels[i % levels.len()];
        if !check_case(&src, &inputs, isa, &format!("graph {i}")) {
            refused += 1;
        }
    }
    // Most programs must be valid, or the generator tests little.
    assert!(
        refused * 4 < count,
        "{refused} of {count} graphs refused by the interpreter"
    );
    println!("{count} graphs, {several} reducing several dimensions, {refused} refused");
    assert!(
        several * 50 >= count,
        "only {several} graphs reduce several dimensions"
    );
}
