//! The fuser against PyTorch's: for every committed pair of a profiled graph
//! (`X.te.profiling.ir`) and the graph PyTorch's TensorExpr fuser made of it
//! (`X.te.optimized.ir`), the executor's passes up to the fuser (`specialize-profiled-types`,
//! `unroll-constant-loops`, as PyTorch's profiling executor unrolls before it fuses, and
//! `fuse-tensor-exprs`) must put in groups
//! at least the nodes PyTorch's `prim::TensorExprGroup`s hold, matched by kind and source
//! location (`# file:line:col`); constants do not count. `guard-tensor-exprs` then guards the
//! groups, and the result must verify and print as graph text that parses back.
//!
//! Cases that fall short are listed in `fuser_oracle_expected_misses.txt` with the reason; a
//! listed case that no longer falls short fails the test too, so the list stays honest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::profiled_corpus;
use profiled_corpus::{run_passes, te_cases};

use ember_dialects::attr::AttrValue;
use ember_dialects::parse::parse_graph;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph};

/// (kind, source location) of a fused node.
type Key = (String, String);

/// The nodes inside every `prim::TensorExprGroup` of `g`, nested blocks included.
fn fused_nodes(g: &Graph) -> BTreeSet<Key> {
    let mut out = BTreeSet::new();
    collect(g, g.block(), &mut out);
    out
}

fn collect(g: &Graph, b: Block, out: &mut BTreeSet<Key>) {
    for n in g.all_nodes(b) {
        if g.kind(n) != sym::tensor_expr_group() {
            continue;
        }
        let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) else {
            panic!("a group without a subgraph");
        };
        for m in sub.all_nodes(sub.block()) {
            if sub.kind(m) == sym::constant() {
                continue;
            }
            let at = sub
                .source_range(m)
                .map(|r| r.to_string())
                .unwrap_or_default();
            out.insert((sub.kind(m).as_str().to_string(), at));
        }
    }
}

#[test]
fn ember_groups_cover_pytorch_groups() {
    let dir = profiled_corpus::dir();
    let expected_text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuser_oracle_expected_misses.txt"),
    )
    .unwrap();
    let expected: BTreeMap<&str, &str> = expected_text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            l.split_once(':')
                .map_or((l.trim(), ""), |(c, why)| (c.trim(), why.trim()))
        })
        .collect();
    let (mut compared, mut covered, mut with_groups) = (0, 0, 0);
    let mut unexpected = Vec::new();
    for (case, profiling) in te_cases() {
        let optimized = dir.join(format!("{case}.te.optimized.ir"));
        let Ok(reference_text) = std::fs::read_to_string(&optimized) else {
            continue;
        };
        let reference = parse_graph(&reference_text)
            .unwrap_or_else(|e| panic!("{case}: PyTorch's graph does not parse: {e:?}"));
        let mut g = parse_graph(&std::fs::read_to_string(&profiling).unwrap())
            .unwrap_or_else(|e| panic!("{case}: the profiled graph does not parse: {e:?}"));
        run_passes(
            &mut g,
            &[
                "specialize-profiled-types",
                "unroll-constant-loops",
                "fuse-tensor-exprs",
            ],
            &case,
        );
        let ours = fused_nodes(&g);
        let theirs = fused_nodes(&reference);
        compared += 1;
        with_groups += usize::from(!theirs.is_empty());
        let missing: Vec<&Key> = theirs.difference(&ours).collect();
        let ok = missing.is_empty();
        covered += usize::from(ok && !theirs.is_empty());
        match (ok, expected.get(case.as_str())) {
            (true, Some(_)) => unexpected.push(format!("{case}: listed as a miss but now covered")),
            (false, None) => {
                unexpected.push(format!("{case}: PyTorch fused {missing:?}, Ember did not"))
            }
            _ => {}
        }
        run_passes(&mut g, &["guard-tensor-exprs"], &case);
        let printed = g.to_string();
        if let Err(e) = parse_graph(&printed) {
            panic!("{case}: the guarded graph does not parse back: {e:?}\n{printed}");
        }
    }
    eprintln!("fuser oracle: {compared} pairs; PyTorch made groups in {with_groups}, Ember covers {covered} of those");
    assert!(compared >= 35, "only {compared} corpus pairs found");
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

/// The three passes take every graph of the corpus (scripted, traced, frozen, profiled, and
/// PyTorch's own optimized graphs with their groups and guards): no error, a graph that
/// verifies after each pass, and text that parses back.
#[test]
fn the_fuser_pipeline_takes_every_corpus_graph() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/corpus/graphs");
    let mut files: Vec<_> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.expect("readable corpus").into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    files.sort();
    let mut parsed = 0;
    for file in files {
        let Ok(mut g) = parse_graph(&std::fs::read_to_string(&file).unwrap()) else {
            continue;
        };
        parsed += 1;
        let case = file.display().to_string();
        run_passes(
            &mut g,
            &[
                "specialize-profiled-types",
                "fuse-tensor-exprs",
                "guard-tensor-exprs",
            ],
            &case,
        );
        if let Err(e) = parse_graph(&g.to_string()) {
            panic!("{case}: the result does not parse back: {e:?}");
        }
    }
    assert!(parsed > 500, "only {parsed} corpus graphs parsed");
}
