//! Whether a value of a mutable type (a list, a dict, an object) may be written or may escape
//! where it could be written. Folding a list into a constant shares one object between every
//! run of the node, so PyTorch folds only lists that nothing writes; without an alias analysis
//! yet, this follows each use and accepts only uses known to read.

use ember_dialects::{Graph, Type, Value};

/// How deep uses are followed through containers before giving up.
const MAX_DEPTH: usize = 16;

/// Whether values of type `t` are objects that ops can write in place.
pub fn is_mutable_type(t: &Type) -> bool {
    match t {
        Type::Tuple(tt) => tt.elements.iter().any(is_mutable_type),
        Type::Optional(inner) => is_mutable_type(inner),
        Type::Int
        | Type::Float
        | Type::Complex
        | Type::Bool
        | Type::Str
        | Type::None
        | Type::Number
        | Type::Device
        | Type::Layout
        | Type::ScalarType
        | Type::MemoryFormat
        | Type::SymInt
        | Type::SymFloat
        | Type::SymBool
        | Type::Tensor(_) => false,
        _ => true,
    }
}

/// Ops that write an argument in place; everything else `aten::` only reads its list inputs.
fn writes_in_place(unqualified: &str) -> bool {
    let dunder = unqualified.starts_with("__") && unqualified.ends_with("__");
    // `add_` works in place, `__contains__` does not, `__iand__` does.
    (unqualified.ends_with('_') && !dunder)
        || (dunder
            && unqualified.starts_with("__i")
            && unqualified != "__is__"
            && unqualified != "__isnot__")
        || matches!(
            unqualified,
            "append"
                | "insert"
                | "extend"
                | "pop"
                | "remove"
                | "clear"
                | "reverse"
                | "sort"
                | "_set_item"
                | "__setitem__"
                | "setdefault"
                | "update"
                | "popitem"
                | "__delitem__"
        )
}

/// Whether no use of `v` (nor of anything extracted from it or built around it) can write it:
/// every user is an `aten::` op that does not work in place, or one of the prim ops that only
/// read or repackage, and nothing lets it escape (block outputs, calls, loops, `is`).
pub fn never_mutated(g: &Graph, v: Value) -> bool {
    never_mutated_at(g, v, 0)
}

fn never_mutated_at(g: &Graph, v: Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    g.uses(v).iter().all(|u| {
        let kind = g.kind(u.user);
        let reads = match kind.namespace() {
            "aten" => {
                !writes_in_place(kind.unqualified())
                    && !matches!(kind.unqualified(), "__is__" | "__isnot__")
            }
            "prim" => matches!(
                kind.unqualified(),
                "TupleIndex"
                    | "TupleUnpack"
                    | "TupleSlice"
                    | "TupleConstruct"
                    | "ListUnpack"
                    | "ListConstruct"
                    | "unchecked_cast"
                    | "min"
                    | "max"
                    | "isinstance"
            ),
            _ => false,
        };
        // What a reader hands on (an element, a container holding `v`) must be safe as well.
        reads
            && g.node_blocks(u.user).is_empty()
            && g.node_outputs(u.user)
                .iter()
                .all(|&o| !is_mutable_type(g.ty(o)) || never_mutated_at(g, o, depth + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::writes_in_place;

    #[test]
    fn in_place_ops_by_name() {
        for op in [
            "add_",
            "append",
            "__setitem__",
            "__iand__",
            "_set_item",
            "sort",
        ] {
            assert!(writes_in_place(op), "{op}");
        }
        for op in [
            "add",
            "__contains__",
            "__getitem__",
            "len",
            "__is__",
            "__isnot__",
            "view",
        ] {
            assert!(!writes_in_place(op), "{op}");
        }
    }
}
