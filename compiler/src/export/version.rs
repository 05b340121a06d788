//! The file format version of an archive, as PyTorch's printer works it out: 3, or the
//! version at which an operator the code calls changed (operator_upgraders/version_map.cpp),
//! since a reader runs an older file's calls of that operator through an upgrader that keeps
//! the old behaviour (`torch.div` of integers truncated before 4, `torch.full` inferred a
//! float dtype before 5, `linspace`/`logspace` steps defaulted before 8/9, `gelu` had no
//! `approximate` before 10). From version 6 the version record is `.data/version`.

use ember_dialects::symbol::sym;
use ember_dialects::{AttrValue, Graph, Node, Type};

/// What PyTorch writes for code that needs no newer version.
pub const MIN_VERSION: u64 = 3;

/// The version the call `n` needs: its overload's entry in PyTorch's version map.
fn version_of(g: &Graph, n: Node) -> u64 {
    let inputs = g.node_inputs(n);
    let first_is_tensor = inputs
        .first()
        .is_some_and(|&v| matches!(g.ty(v), Type::Tensor(_)));
    let kind = g.kind(n);
    match kind.as_str() {
        // div.Tensor, div.Scalar, div_.Tensor, div_.Scalar (not the rounding_mode overloads).
        "aten::div" | "aten::div_" if inputs.len() == 2 => 4,
        // full and full.out (not full.names).
        "aten::full" if inputs.len() == 6 || inputs.len() == 3 => 5,
        // The Scalar overloads (not linspace.Tensor_Tensor and friends).
        "aten::linspace" if !first_is_tensor => 8,
        "aten::logspace" if !first_is_tensor => 9,
        "aten::gelu" => 10,
        _ => MIN_VERSION,
    }
}

/// The version the code of `graphs` needs, the functions their calls carry included.
pub fn file_format_version<'a>(graphs: impl IntoIterator<Item = &'a Graph>) -> u64 {
    fn walk(g: &Graph, version: &mut u64) {
        for n in g.nodes() {
            *version = (*version).max(version_of(g, n));
            if let Some(AttrValue::Graph(body)) = g.attr(n, sym::attr_subgraph()) {
                walk(body, version);
            }
        }
    }
    let mut version = MIN_VERSION;
    for g in graphs {
        walk(g, &mut version);
    }
    version
}

/// The name of the record that holds the version.
pub fn record_name(version: u64) -> &'static str {
    if version >= 6 {
        ".data/version"
    } else {
        "version"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> u64 {
        let g = ember_dialects::parse::parse_graph(text).expect("graph");
        file_format_version([&g])
    }

    #[test]
    fn operators_that_changed_raise_the_version() {
        let plain = "graph(%x : Tensor):\n  %1 : int = prim::Constant[value=1]()\n  %y : Tensor = aten::add(%x, %x, %1)\n  return (%y)\n";
        assert_eq!(version(plain), 3);
        let div = "graph(%x : Tensor):\n  %y : Tensor = aten::div(%x, %x)\n  return (%y)\n";
        assert_eq!(version(div), 4);
        let div_mode = "graph(%x : Tensor):\n  %m : str = prim::Constant[value=\"floor\"]()\n  %y : Tensor = aten::div(%x, %x, %m)\n  return (%y)\n";
        assert_eq!(version(div_mode), 3);
        let gelu = "graph(%x : Tensor):\n  %a : str = prim::Constant[value=\"none\"]()\n  %y : Tensor = aten::gelu(%x, %a)\n  %z : Tensor = aten::div(%y, %x)\n  return (%z)\n";
        assert_eq!(version(gelu), 10);
        assert_eq!(record_name(5), "version");
        assert_eq!(record_name(10), ".data/version");
    }
}
