//! Differential checks of `Graph::insert` against the TorchScript compiler: the call real
//! PyTorch builds for `torch.ops.NS.NAME(args)`, identified by the overload its node resolves
//! to, as recorded by `tools/gen/dump_call_checks.py` in `dialects/data/call_checks.txt`.

use ember_dialects::catalogue::resolve_node;
use ember_dialects::ir::InsertArg;
use ember_dialects::schema::parse_schema;
use ember_dialects::types::Type;
use ember_dialects::{Graph, Symbol};

const CHECKS: &str = include_str!("../data/call_checks.txt");

fn ty(text: &str) -> Type {
    parse_schema(&format!("a::b({text} x) -> ()"))
        .unwrap_or_else(|d| panic!("{text}: {d}"))
        .arguments[0]
        .fake_type()
}

/// A parameter of the given type, or a literal (`=1`, `=2.5`, `=True`, `=None`, `=[1, 2]`,
/// `="cpu"`).
fn arg(g: &mut Graph, text: &str) -> InsertArg {
    let Some(lit) = text.strip_prefix('=') else {
        return InsertArg::Value(g.add_input(ty(text)));
    };
    match lit {
        "True" => InsertArg::Bool(true),
        "False" => InsertArg::Bool(false),
        "None" => InsertArg::None,
        _ if lit.starts_with('"') => InsertArg::Str(lit.trim_matches('"').to_string()),
        _ if lit.starts_with('[') => InsertArg::IntList(
            lit.trim_matches(['[', ']'])
                .split(", ")
                .map(|s| s.parse().unwrap())
                .collect(),
        ),
        _ if lit.contains('.') => InsertArg::Float(lit.parse().unwrap()),
        _ => InsertArg::Int(lit.parse().unwrap()),
    }
}

#[test]
fn insert_picks_the_overload_torchscript_picks() {
    let (mut count, mut failures) = (0, Vec::new());
    for (i, line) in CHECKS.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(" | ").collect();
        let want = f[2];
        // Calls PyTorch answers with TorchScript-defined builtins or folds away say nothing
        // about overload matching.
        if want == "folded" || want == "builtin" {
            continue;
        }
        count += 1;
        let mut g = Graph::new();
        let args: Vec<InsertArg> = f[1]
            .split(" ; ")
            .filter(|a| !a.is_empty())
            .map(|a| arg(&mut g, a))
            .collect();
        // PyTorch's answer is `Node::schema()` of the call it built, so ask the same of ours:
        // it holds when the inputs (conversions, defaults, gathered lists) have the same types.
        let got = match g.insert_call(Symbol::new(f[0]), &args, &[]) {
            Ok(call) => {
                resolve_node(&g, call.node).map_or("(no schema)".to_string(), |s| s.full_name())
            }
            Err(_) => "error".to_string(),
        };
        if got != want {
            failures.push(format!(
                "line {}: {}({}): got {got}, PyTorch {want}",
                i + 1,
                f[0],
                f[1]
            ));
        }
    }
    assert!(count > 1000, "only {count} checks");
    assert!(
        failures.is_empty(),
        "{} of {count} calls differ from PyTorch:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
