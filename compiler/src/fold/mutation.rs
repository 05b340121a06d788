//! Whether a value of a mutable type (a list, a dict, an object) may be written or may escape
//! where it could be written. Folding a list into a constant shares one object between every
//! run of the node, so PyTorch folds only lists that nothing writes; without an alias analysis
//! yet, this follows each use and accepts only uses known to read (in-place ops are told apart
//! by [`effects::writes_itself`], from their schemas' write annotations).

use ember_dialects::{Graph, Type, Value};

use crate::analysis::effects;

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
                !effects::writes_itself(g, u.user)
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
