use super::*;
use crate::attr::{AttrValue, ConstValue};
use crate::ir::Node;
use crate::symbol::{sym, Symbol};
use crate::types::Type;

/// `kind(input kinds) -> output types` for each node of the top block, in order; inputs are
/// named by their producer's kind (`%param` for graph inputs).
fn summary(g: &Graph) -> Vec<String> {
    g.block_nodes(g.block())
        .map(|n| {
            let inputs: Vec<String> = g
                .node_inputs(n)
                .iter()
                .map(|&v| {
                    let p = g.producer(v);
                    if g.is_block_boundary(p) {
                        "%param".to_string()
                    } else {
                        g.kind(p).unqualified().to_string()
                    }
                })
                .collect();
            let outs: Vec<String> = g
                .node_outputs(n)
                .iter()
                .map(|&v| g.ty(v).schema_str())
                .collect();
            format!(
                "{}({}) -> {}",
                g.kind(n),
                inputs.join(", "),
                outs.join(", ")
            )
        })
        .collect()
}

fn constant_attr(g: &Graph, n: Node) -> Option<AttrValue> {
    g.attr(n, sym::attr_value()).cloned()
}

#[test]
fn inserts_add_tensor_with_its_default_alpha() {
    let mut g = Graph::new();
    let (a, b) = (g.add_input(Type::tensor()), g.add_input(Type::tensor()));
    let out = g
        .insert(Symbol::aten("add"), &[a.into(), b.into()])
        .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(
        summary(&g),
        [
            "prim::Constant() -> int",
            "aten::add(%param, %param, Constant) -> Tensor"
        ]
    );
    let add = g.producer(out[0]);
    let alpha = g.producer(g.input(add, 2));
    assert!(matches!(constant_attr(&g, alpha), Some(AttrValue::Int(1))));
}

#[test]
fn literals_become_constants_and_pick_the_overload() {
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let out = g
        .insert(Symbol::aten("add"), &[x.into(), 2.5f64.into()])
        .unwrap();
    // A float is not a Tensor, so `add.Scalar` is chosen.
    assert_eq!(
        summary(&g),
        [
            "prim::Constant() -> float",
            "prim::Constant() -> int",
            "aten::add(%param, Constant, Constant) -> Tensor"
        ]
    );
    assert_eq!(out.len(), 1);

    let mut g = Graph::new();
    let out = g
        .insert(Symbol::aten("add"), &[1i64.into(), 2i64.into()])
        .unwrap();
    assert_eq!(g.ty(out[0]), &Type::Int);
    let add = g.producer(out[0]);
    assert_eq!(g.kind(add), Symbol::aten("add"));
    assert!(matches!(
        constant_attr(&g, g.producer(g.input(add, 0))),
        Some(AttrValue::Int(1))
    ));
}

#[test]
fn cat_takes_a_tensor_list_and_size_an_int() {
    let mut g = Graph::new();
    let (a, b) = (g.add_input(Type::tensor()), g.add_input(Type::tensor()));
    let list = g.create(sym::list_construct(), &[a, b], 0);
    g.add_node_output(list, Type::list(Type::tensor()));
    g.insert_node(list);
    let l = g.output(list, 0);
    let cat = g
        .insert(Symbol::aten("cat"), &[l.into(), 1i64.into()])
        .unwrap();
    let size = g
        .insert(Symbol::aten("size"), &[cat[0].into(), InsertArg::Int(0)])
        .unwrap();
    assert_eq!(g.ty(size[0]), &Type::Int);
    assert_eq!(
        summary(&g),
        [
            "prim::ListConstruct(%param, %param) -> Tensor[]",
            "prim::Constant() -> int",
            "aten::cat(ListConstruct, Constant) -> Tensor",
            "prim::Constant() -> int",
            "aten::size(cat, Constant) -> int"
        ]
    );
}

#[test]
fn type_variables_type_the_outputs() {
    let mut g = Graph::new();
    let l = g.add_input(Type::list(Type::Float));
    let item = g
        .insert(Symbol::aten("__getitem__"), &[l.into(), 0i64.into()])
        .unwrap();
    assert_eq!(g.ty(item[0]), &Type::Float);
    let ints = g
        .insert(Symbol::aten("list"), &[vec![1i64, 2].into()])
        .unwrap();
    assert_eq!(g.ty(ints[0]), &Type::list(Type::Int));
    let c = g.producer(g.input(g.producer(ints[0]), 0));
    assert_eq!(
        constant_attr(&g, c).map(|a| format!("{a:?}")),
        Some(format!(
            "{:?}",
            AttrValue::IValue(ConstValue::List(vec![
                ConstValue::Int(1),
                ConstValue::Int(2)
            ]))
        ))
    );
}

#[test]
fn conversions_and_repeated_ints_are_inserted() {
    // `aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], ...)`: one int
    // stands for the whole list.
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    g.insert(Symbol::aten("max_pool2d"), &[x.into(), 3i64.into()])
        .unwrap();
    let s = summary(&g);
    assert_eq!(s[0], "prim::Constant() -> int");
    assert_eq!(s[1], "prim::ListConstruct(Constant, Constant) -> int[]");
    assert_eq!(
        s.last().unwrap(),
        "aten::max_pool2d(%param, ListConstruct, Constant, Constant, Constant, Constant) -> Tensor"
    );

    // A bool for a Scalar goes through `aten::Int`, as the TorchScript compiler does.
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    g.insert(Symbol::aten("mul"), &[x.into(), true.into()])
        .unwrap();
    assert_eq!(
        summary(&g),
        [
            "prim::Constant() -> bool",
            "aten::Int(Constant) -> int",
            "aten::mul(%param, Int) -> Tensor"
        ]
    );
}

#[test]
fn keyword_arguments_and_insertion_point() {
    let mut g = Graph::new();
    let (a, b) = (g.add_input(Type::tensor()), g.add_input(Type::tensor()));
    let first = g
        .insert(Symbol::aten("mul"), &[a.into(), b.into()])
        .unwrap();
    g.set_insert_point(g.producer(first[0]));
    g.insert_with_kwargs(
        Symbol::aten("sub"),
        &[a.into(), b.into()],
        &[("alpha", InsertArg::Int(2))],
    )
    .unwrap();
    assert_eq!(
        summary(&g),
        [
            "prim::Constant() -> int",
            "aten::sub(%param, %param, Constant) -> Tensor",
            "aten::mul(%param, %param) -> Tensor"
        ]
    );
}

#[test]
fn mismatches_list_every_candidate() {
    let mut g = Graph::new();
    let err = g
        .insert(Symbol::aten("add"), &["a".into(), InsertArg::Int(1)])
        .unwrap_err();
    assert!(
        err.starts_with(
            "Arguments for call are not valid.\nThe following variants are available:\n"
        ),
        "{err}"
    );
    assert!(err.contains(
        "  aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor:\n  Expected a value of type 'Tensor' for argument 'self' but instead found type 'str'.\n"
    ), "{err}");
    assert!(err.contains("  aten::add.str(str a, str b) -> str:\n  Expected a value of type 'str' for argument 'b' but instead found type 'int'.\n"), "{err}");
    let err = g.insert(Symbol::aten("no_such_op"), &[]).unwrap_err();
    assert!(
        err.starts_with("Unknown builtin op: aten::no_such_op."),
        "{err}"
    );
    let err = g.insert(Symbol::aten("relu"), &[]).unwrap_err();
    assert!(err.contains("Argument self not provided."), "{err}");
    let err = g
        .insert_with_kwargs(
            Symbol::prim("RaiseException"),
            &["boom".into()],
            &[("nope", InsertArg::None)],
        )
        .unwrap_err();
    assert!(err.contains("Keyword argument nope unknown."), "{err}");
}

#[test]
fn trailing_ints_gather_into_a_list_argument() {
    // `x.view(2, 3)` compiles to `aten::view(x, prim::ListConstruct(2, 3))`; `view.dtype` is
    // never chosen (a ScalarType is an int to TorchScript).
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    g.insert(Symbol::aten("view"), &[x.into(), 2i64.into(), 3i64.into()])
        .unwrap();
    assert_eq!(
        summary(&g),
        [
            "prim::Constant() -> int",
            "prim::Constant() -> int",
            "prim::ListConstruct(Constant, Constant) -> int[]",
            "aten::view(%param, ListConstruct) -> Tensor"
        ]
    );
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    g.insert(Symbol::aten("view"), &[x.into(), 2i64.into()])
        .unwrap();
    assert_eq!(
        summary(&g).last().unwrap(),
        "aten::view(%param, ListConstruct) -> Tensor"
    );
}

#[test]
fn tuples_pass_for_lists() {
    // `x.view(t)` with `t: Tuple[int, int]`: unpacked into a list, as TorchScript does.
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let t = g.add_input(Type::tuple(vec![Type::Int, Type::Int]));
    g.insert(Symbol::aten("view"), &[x.into(), t.into()])
        .unwrap();
    assert_eq!(
        summary(&g),
        [
            "prim::TupleUnpack(%param) -> int, int",
            "prim::ListConstruct(TupleUnpack, TupleUnpack) -> int[]",
            "aten::view(%param, ListConstruct) -> Tensor"
        ]
    );
    // A tuple built in the graph is not unpacked again.
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let (a, b) = (g.add_input(Type::Int), g.add_input(Type::Int));
    let tc = g.create(sym::tuple_construct(), &[a, b], 0);
    g.add_node_output(tc, Type::tuple(vec![Type::Int, Type::Int]));
    g.insert_node(tc);
    let t = g.output(tc, 0);
    g.insert(Symbol::aten("view"), &[x.into(), t.into()])
        .unwrap();
    assert_eq!(
        summary(&g)[1],
        "prim::ListConstruct(%param, %param) -> int[]"
    );
}
