//! Ember's passes against PyTorch's own (`torch._C._jit_pass_dce`, `_cse`,
//! `_constant_pooling`) on the graph corpus; the reference is made by
//! tools/gen/gen_pass_reference.py. Without alias analysis Ember is more conservative, so for
//! every graph and every node kind Ember keeps at least as many nodes as PyTorch: a kind of
//! which Ember keeps fewer means Ember removed or merged something PyTorch had to keep.
//! `SHOW_MISSED=1` lists where Ember keeps more.
//!
//! The mutation and aliasing edge cases of test/Transforms/mutation (reference under
//! `mutation/`) also go through `remove-mutation`. Where Ember removes more than PyTorch, the
//! difference is listed in [`BEYOND_PYTORCH`] with the reason it is safe.

use std::collections::BTreeMap;
use std::path::Path;

use ember_compiler::passes::{lookup, PassContext};
use ember_dialects::parse::parse_graph;
use ember_dialects::Graph;

const REFERENCE: &str = include_str!("data/pytorch_passes.txt");

/// (pass, graph, kind): where Ember keeps fewer nodes of a kind than PyTorch, on purpose.
const BEYOND_PYTORCH: &[(&str, &str, &str, &str)] = &[
    (
        "dce",
        "mutation/loop-write.ir",
        "aten::mul",
        "a tensor made in the loop body and written in place, never read: alias analysis shows the write is dead",
    ),
    (
        "dce",
        "mutation/loop-write.ir",
        "aten::relu_",
        "the dead write to that tensor",
    ),
];

/// The graph of a reference entry: a corpus graph, or a mutation case (a lit test, read
/// without its comment lines).
fn read_graph(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match rel.strip_prefix("mutation/") {
        Some(case) => std::fs::read_to_string(root.join("test/Transforms/mutation").join(case))
            .expect("a mutation case")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect(),
        None => std::fs::read_to_string(root.join("test/corpus/graphs").join(rel))
            .expect("a corpus graph"),
    }
}

fn kind_counts(g: &Graph) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for n in g.nodes() {
        *counts.entry(g.kind(n).as_str().to_string()).or_insert(0) += 1;
    }
    counts
}

fn parse_counts(text: &str) -> BTreeMap<String, usize> {
    text.split_whitespace()
        .map(|kv| {
            let (k, v) = kv.rsplit_once('=').expect("kind=count");
            (k.to_string(), v.parse().expect("a count"))
        })
        .collect()
}

#[test]
fn never_removes_what_pytorch_keeps() {
    let mut graph: Option<Graph> = None;
    let mut current = String::new();
    let (mut checked, mut missed) = (0, BTreeMap::<&str, usize>::new());
    let mut failures = Vec::new();
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#')) {
        let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
        if head == "graph" {
            current = rest.to_string();
            graph = parse_graph(&read_graph(rest)).ok();
            continue;
        }
        let Some(original) = &graph else { continue };
        let pass = lookup(head).expect("a registered pass");
        let mut g = original.clone();
        (pass.run)(&mut g, &mut PassContext::unlimited(pass.name)).expect("the pass runs");
        let ours = kind_counts(&g);
        let theirs = parse_counts(rest);
        for (kind, &n) in &theirs {
            let have = ours.get(kind).copied().unwrap_or(0);
            let excused = BEYOND_PYTORCH
                .iter()
                .any(|(p, gr, k, _)| *p == head && *gr == current && k == kind);
            if have < n && !excused {
                failures.push(format!(
                    "{head} on {current}: {kind} left {have} times, PyTorch keeps {n}\n{g}"
                ));
            }
        }
        for (kind, &have) in &ours {
            let n = theirs.get(kind).copied().unwrap_or(0);
            if have > n && std::env::var("SHOW_MISSED").is_ok() {
                eprintln!("{head} on {current}: {kind} {have} vs {n}");
            }
        }
        let extra: usize =
            ours.values().sum::<usize>() - theirs.values().sum::<usize>().min(ours.values().sum());
        *missed.entry(pass.name).or_insert(0) += extra;
        checked += 1;
    }
    assert!(
        checked > 300,
        "only {checked} reference results were checked"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!("nodes PyTorch removes and Ember keeps, per pass: {missed:?}");
}
