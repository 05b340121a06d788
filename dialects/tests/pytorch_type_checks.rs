//! Differential checks against real PyTorch: subtyping, unification, type spellings and the
//! overload `Node::schema()` picks, as recorded by `tools/gen/dump_type_checks.py` in
//! `dialects/data/type_checks.txt`.

use ember_dialects::catalogue::resolve_node;
use ember_dialects::schema::parse_schema;
use ember_dialects::types::{unify_type_list, Type};
use ember_dialects::{Graph, Symbol};

const CHECKS: &str = include_str!("../data/type_checks.txt");

/// A type in schema syntax, as PyTorch's `Argument::type()` sees it (`ScalarType` is `int`).
fn ty(text: &str) -> Type {
    parse_schema(&format!("a::b({text} x) -> ()"))
        .unwrap_or_else(|d| panic!("{text}: {d}"))
        .arguments[0]
        .fake_type()
}

fn checks(kind: &str) -> impl Iterator<Item = (usize, Vec<&'static str>)> + '_ {
    CHECKS.lines().enumerate().filter_map(move |(i, line)| {
        let rest = line.strip_prefix(kind)?.strip_prefix(' ')?;
        Some((i + 1, rest.split(" | ").collect()))
    })
}

/// Runs `check` on every line of `kind`, and fails listing the first mismatches.
fn run(kind: &str, mut check: impl FnMut(&[&str]) -> Option<String>) {
    let mut failures = Vec::new();
    let mut count = 0;
    for (line, fields) in checks(kind) {
        count += 1;
        if let Some(f) = check(&fields) {
            failures.push(format!("line {line}: {f}"));
        }
    }
    assert!(count > 0, "no {kind} checks");
    assert!(
        failures.is_empty(),
        "{} of {count} {kind} checks differ from PyTorch:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn subtyping_matches_pytorch() {
    run("sub", |f| {
        let got = ty(f[0]).is_subtype_of(&ty(f[1]));
        (got.to_string() != f[2])
            .then(|| format!("{} <: {}: got {got}, PyTorch {}", f[0], f[1], f[2]))
    });
}

#[test]
fn unification_matches_pytorch() {
    run("unify", |f| {
        let got = unify_type_list(&[ty(f[0]), ty(f[1])]).ok();
        let want = (f[2] != "none").then(|| ty(f[2]));
        let same = match (&got, &want) {
            (Some(a), Some(b)) => a.equals(b),
            (None, None) => true,
            _ => false,
        };
        let shown = got.map_or("none".to_string(), |t| t.schema_str());
        (!same).then(|| format!("unify({}, {}): got {shown}, PyTorch {}", f[0], f[1], f[2]))
    });
}

#[test]
fn annotation_spellings_match_pytorch() {
    run("repr", |f| {
        let got = ty(f[0]).repr_str();
        (got != f[1]).then(|| format!("{}: got {got}, PyTorch {}", f[0], f[1]))
    });
}

#[test]
fn node_resolution_matches_pytorch() {
    run("resolve", |f| {
        let mut g = Graph::new();
        let inputs: Vec<_> = f[1]
            .split(" ; ")
            .filter(|t| !t.is_empty())
            .map(|t| g.add_input(ty(t)))
            .collect();
        let n = g.create_and_insert(Symbol::new(f[0]), &inputs, 1);
        let got = resolve_node(&g, n).map_or("(no schema)".to_string(), |s| s.full_name());
        (got != f[2]).then(|| format!("{}({}): got {got}, PyTorch {}", f[0], f[1], f[2]))
    });
}
