use egg::{Id, Language, RecExpr};
use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Type, Value};
use hashbrown::HashMap;

use super::run;
use crate::fold::constant_value;
use crate::passes::testing_fold::{constant, int, listing, op};
use crate::passes::PassContext;
use crate::rewrite::scalar::{Leaf, Scalar, ScalarTy};
use crate::rewrite::scalar_rules;

/// Builds the graph of an expression (`int%0` is graph input 0, an int), runs the pass and
/// reads the graph's output back as an expression.
fn simplify(src: &str) -> String {
    let expr: RecExpr<Scalar> = src.parse().unwrap_or_else(|e| panic!("{src}: {e}"));
    let mut g = Graph::new();
    let mut leaf_of: HashMap<Value, Leaf> = HashMap::new();
    let mut inputs: HashMap<u32, Value> = HashMap::new();
    let mut vals: Vec<(Value, ScalarTy)> = Vec::new();
    for node in expr.as_ref() {
        let entry = match node {
            Scalar::Leaf(l) => {
                let v = *inputs
                    .entry(l.index)
                    .or_insert_with(|| g.add_input(l.ty.to_type()));
                leaf_of.insert(v, *l);
                (v, l.ty)
            }
            Scalar::Int(_) | Scalar::Float(_) | Scalar::Bool(_) => {
                let c = node.literal_value().unwrap();
                let ty = match c {
                    ConstValue::Int(_) => ScalarTy::Int,
                    ConstValue::Float(_) => ScalarTy::Float,
                    _ => ScalarTy::Bool,
                };
                (constant(&mut g, c), ty)
            }
            op => {
                let args: Vec<(Value, ScalarTy)> = op
                    .children()
                    .iter()
                    .map(|&c: &Id| vals[usize::from(c)])
                    .collect();
                let tys: Vec<ScalarTy> = args.iter().map(|a| a.1).collect();
                let ty = op
                    .result_type(&tys)
                    .unwrap_or_else(|| panic!("{src}: ill-typed"));
                let ins: Vec<Value> = args.iter().map(|a| a.0).collect();
                let kind = op.op_kind().unwrap();
                (op_value(&mut g, kind.as_str(), &ins, ty.to_type()), ty)
            }
        };
        vals.push(entry);
    }
    g.register_output(vals.last().unwrap().0);
    let mut cx = PassContext::unlimited("canonicalize");
    run(&mut g, &mut cx).unwrap();
    render(&g, g.outputs()[0], &leaf_of)
}

fn op_value(g: &mut Graph, kind: &str, inputs: &[Value], ty: Type) -> Value {
    op(g, kind, inputs, ty)
}

fn render(g: &Graph, v: Value, leaf_of: &HashMap<Value, Leaf>) -> String {
    if let Some(l) = leaf_of.get(&v) {
        return l.to_string();
    }
    if let Some(lit) = constant_value(g, v).as_ref().and_then(Scalar::literal) {
        return lit.to_string();
    }
    let n = g.producer(v);
    let args: Vec<String> = g
        .node_inputs(n)
        .iter()
        .map(|&a| render(g, a, leaf_of))
        .collect();
    format!("({} {})", g.kind(n), args.join(" "))
}

/// One line per rule outcome: the rule (or `rule/why-not` for a case it must leave alone),
/// the expression, and what the pass makes of it.
const CASES: &[(&str, &str, &str)] = &[
    ("add-zero", "(aten::add int%0 0)", "int%0"),
    (
        "add-zero/float",
        "(aten::add float%0 0)",
        "(aten::add float%0 0)",
    ),
    (
        "add-zero/float-zero",
        "(aten::add float%0 0.0)",
        "(aten::add float%0 0.0)",
    ),
    ("zero-add", "(aten::add 0 int%0)", "int%0"),
    ("add-neg-zero", "(aten::add float%0 -0.0)", "float%0"),
    ("sub-zero", "(aten::sub int%0 0)", "int%0"),
    ("sub-pos-zero", "(aten::sub float%0 0.0)", "float%0"),
    (
        "sub-pos-zero/neg-zero",
        "(aten::sub float%0 -0.0)",
        "(aten::sub float%0 -0.0)",
    ),
    ("sub-self", "(aten::sub int%0 int%0)", "0"),
    (
        "sub-self/float",
        "(aten::sub float%0 float%0)",
        "(aten::sub float%0 float%0)",
    ),
    ("zero-sub", "(aten::sub 0 int%0)", "(aten::neg int%0)"),
    (
        "zero-sub/float",
        "(aten::sub 0.0 float%0)",
        "(aten::sub 0.0 float%0)",
    ),
    ("mul-one", "(aten::mul int%0 1)", "int%0"),
    ("one-mul", "(aten::mul 1 int%0)", "int%0"),
    ("mul-one-float", "(aten::mul float%0 1.0)", "float%0"),
    ("one-mul-float", "(aten::mul 1.0 float%0)", "float%0"),
    ("mul-zero", "(aten::mul int%0 0)", "0"),
    (
        "mul-zero/float",
        "(aten::mul float%0 0.0)",
        "(aten::mul float%0 0.0)",
    ),
    ("zero-mul", "(aten::mul 0 int%0)", "0"),
    (
        "zero-mul/float",
        "(aten::mul 0 float%0)",
        "(aten::mul 0 float%0)",
    ),
    ("mul-neg-one", "(aten::mul int%0 -1)", "(aten::neg int%0)"),
    ("div-one-float", "(aten::div float%0 1.0)", "float%0"),
    (
        "div-one-float/int",
        "(aten::div int%0 1)",
        "(aten::div int%0 1)",
    ),
    ("floordiv-one", "(aten::floordiv int%0 1)", "int%0"),
    (
        "floordiv-one/float",
        "(aten::floordiv float%0 1.0)",
        "(aten::floordiv float%0 1.0)",
    ),
    ("remainder-one", "(aten::remainder int%0 1)", "0"),
    (
        "remainder-one/float",
        "(aten::remainder float%0 1.0)",
        "(aten::remainder float%0 1.0)",
    ),
    ("neg-neg", "(aten::neg (aten::neg float%0))", "float%0"),
    (
        "add-neg",
        "(aten::add int%0 (aten::neg int%1))",
        "(aten::sub int%0 int%1)",
    ),
    (
        "sub-neg",
        "(aten::sub float%0 (aten::neg float%1))",
        "(aten::add float%0 float%1)",
    ),
    (
        "neg-sub",
        "(aten::neg (aten::sub int%0 int%1))",
        "(aten::sub int%1 int%0)",
    ),
    (
        "neg-sub/float",
        "(aten::neg (aten::sub float%0 float%1))",
        "(aten::neg (aten::sub float%0 float%1))",
    ),
    ("eq-self", "(aten::eq int%0 int%0)", "True"),
    (
        "eq-self/float",
        "(aten::eq float%0 float%0)",
        "(aten::eq float%0 float%0)",
    ),
    ("ne-self", "(aten::ne bool%0 bool%0)", "False"),
    (
        "ne-self/float",
        "(aten::ne float%0 float%0)",
        "(aten::ne float%0 float%0)",
    ),
    ("le-self", "(aten::le int%0 int%0)", "True"),
    (
        "le-self/float",
        "(aten::le float%0 float%0)",
        "(aten::le float%0 float%0)",
    ),
    ("ge-self", "(aten::ge int%0 int%0)", "True"),
    ("lt-self", "(aten::lt float%0 float%0)", "False"),
    ("gt-self", "(aten::gt int%0 int%0)", "False"),
    (
        "sub-eq-zero",
        "(aten::eq (aten::sub int%0 int%1) 0)",
        "(aten::eq int%0 int%1)",
    ),
    (
        "sub-eq-zero/float",
        "(aten::eq (aten::sub float%0 float%1) 0.0)",
        "(aten::eq (aten::sub float%0 float%1) 0.0)",
    ),
    (
        "sub-ne-zero",
        "(aten::ne (aten::sub int%0 int%1) 0)",
        "(aten::ne int%0 int%1)",
    ),
    (
        "neg-eq-neg",
        "(aten::eq (aten::neg float%0) (aten::neg float%1))",
        "(aten::eq float%0 float%1)",
    ),
    (
        "neg-ne-neg",
        "(aten::ne (aten::neg int%0) (aten::neg int%1))",
        "(aten::ne int%0 int%1)",
    ),
    (
        "not-not",
        "(aten::__not__ (aten::__not__ bool%0))",
        "bool%0",
    ),
    ("and-true", "(aten::__and__ bool%0 True)", "bool%0"),
    ("true-and", "(aten::__and__ True bool%0)", "bool%0"),
    ("and-false", "(aten::__and__ bool%0 False)", "False"),
    ("false-and", "(aten::__and__ False bool%0)", "False"),
    ("or-false", "(aten::__or__ bool%0 False)", "bool%0"),
    ("false-or", "(aten::__or__ False bool%0)", "bool%0"),
    ("or-true", "(aten::__or__ bool%0 True)", "True"),
    ("true-or", "(aten::__or__ True bool%0)", "True"),
    ("xor-false", "(aten::__xor__ bool%0 False)", "bool%0"),
    (
        "xor-true",
        "(aten::__xor__ bool%0 True)",
        "(aten::__not__ bool%0)",
    ),
    ("and-self", "(aten::__and__ int%0 int%0)", "int%0"),
    ("or-self", "(aten::__or__ bool%0 bool%0)", "bool%0"),
    ("xor-self", "(aten::__xor__ bool%0 bool%0)", "False"),
    ("xor-self-int", "(aten::__xor__ int%0 int%0)", "0"),
    ("and-zero", "(aten::__and__ int%0 0)", "0"),
    ("or-zero", "(aten::__or__ int%0 0)", "int%0"),
    ("xor-zero", "(aten::__xor__ int%0 0)", "int%0"),
    ("eq-true", "(aten::eq bool%0 True)", "bool%0"),
    (
        "eq-false",
        "(aten::eq bool%0 False)",
        "(aten::__not__ bool%0)",
    ),
    ("ne-false", "(aten::ne bool%0 False)", "bool%0"),
    (
        "ne-true",
        "(aten::ne bool%0 True)",
        "(aten::__not__ bool%0)",
    ),
    (
        "not-eq",
        "(aten::__not__ (aten::eq float%0 float%1))",
        "(aten::ne float%0 float%1)",
    ),
    (
        "not-ne",
        "(aten::__not__ (aten::ne int%0 int%1))",
        "(aten::eq int%0 int%1)",
    ),
    (
        "not-lt",
        "(aten::__not__ (aten::lt int%0 int%1))",
        "(aten::ge int%0 int%1)",
    ),
    (
        "not-lt/float",
        "(aten::__not__ (aten::lt float%0 float%1))",
        "(aten::__not__ (aten::lt float%0 float%1))",
    ),
    (
        "not-le",
        "(aten::__not__ (aten::le bool%0 bool%1))",
        "(aten::gt bool%0 bool%1)",
    ),
    (
        "not-gt",
        "(aten::__not__ (aten::gt int%0 int%1))",
        "(aten::le int%0 int%1)",
    ),
    (
        "not-gt/mixed",
        "(aten::__not__ (aten::gt int%0 float%1))",
        "(aten::__not__ (aten::gt int%0 float%1))",
    ),
    (
        "not-ge",
        "(aten::__not__ (aten::ge int%0 int%1))",
        "(aten::lt int%0 int%1)",
    ),
    (
        "add-add-const",
        "(aten::add (aten::add int%0 2) 3)",
        "(aten::add int%0 5)",
    ),
    (
        "add-add-const/float",
        "(aten::add (aten::add float%0 2.0) 3.0)",
        "(aten::add (aten::add float%0 2.0) 3.0)",
    ),
    (
        "add-add-const/not-constant",
        "(aten::add (aten::add int%0 int%1) 3)",
        "(aten::add (aten::add int%0 int%1) 3)",
    ),
    (
        "sub-sub-const",
        "(aten::sub (aten::sub int%0 2) 3)",
        "(aten::sub int%0 5)",
    ),
    (
        "add-sub-const",
        "(aten::sub (aten::add int%0 2) 3)",
        "(aten::add int%0 -1)",
    ),
    (
        "add-sub-const/cancel",
        "(aten::sub (aten::add int%0 3) 3)",
        "int%0",
    ),
    (
        "mul-mul-const",
        "(aten::mul (aten::mul int%0 2) 3)",
        "(aten::mul int%0 6)",
    ),
    (
        "mul-mul-const/wraps",
        "(aten::mul (aten::mul int%0 4611686018427387904) 4)",
        "0",
    ),
    (
        "add-const-eq",
        "(aten::eq (aten::add int%0 2) 5)",
        "(aten::eq int%0 3)",
    ),
    (
        "add-const-eq/lt",
        "(aten::lt (aten::add int%0 2) 5)",
        "(aten::lt (aten::add int%0 2) 5)",
    ),
    (
        "add-const-ne",
        "(aten::ne (aten::add int%0 -1) 0)",
        "(aten::ne int%0 1)",
    ),
    // Constants fold in the analysis, with the interpreter's semantics.
    ("fold/compare", "(aten::lt 1 2.5)", "True"),
    (
        "fold/arith",
        "(aten::add (aten::mul 3 4) int%0)",
        "(aten::add 12 int%0)",
    ),
    ("fold/floordiv", "(aten::floordiv -7 2)", "-4"),
    (
        "fold/div-by-zero",
        "(aten::floordiv 1 0)",
        "(aten::floordiv 1 0)",
    ),
    // Int `//` and `%` may raise: they become leaves, whose nodes stay in the graph (see
    // `ops_that_may_raise_stay_in_the_graph`), so using their result can still simplify.
    (
        "raising/mul-zero",
        "(aten::mul (aten::floordiv int%0 int%1) 0)",
        "0",
    ),
    (
        "raising/sub-self",
        "(aten::sub (aten::remainder int%0 int%1) (aten::remainder int%0 int%1))",
        "(aten::sub (aten::remainder int%0 int%1) (aten::remainder int%0 int%1))",
    ),
    (
        "raising/const-divisor",
        "(aten::mul (aten::floordiv int%0 3) 0)",
        "0",
    ),
    (
        "raising/minus-one",
        "(aten::mul (aten::floordiv int%0 -1) 0)",
        "0",
    ),
    (
        "raising/float",
        "(aten::lt (aten::floordiv float%0 float%1) (aten::floordiv float%0 float%1))",
        "False",
    ),
    ("fold/float", "(aten::mul 0.1 3.0)", "0.30000000000000004"),
    // Rules combine.
    (
        "chain",
        "(aten::add (aten::mul int%0 1) (aten::sub int%1 int%1))",
        "int%0",
    ),
    (
        "chain/not",
        "(aten::__not__ (aten::__not__ (aten::eq (aten::neg int%0) (aten::neg int%0))))",
        "True",
    ),
];

#[test]
fn each_rule_fires_and_holds_back() {
    let mut failures = Vec::new();
    for (name, input, want) in CASES {
        let got = simplify(input);
        if got != *want {
            failures.push(format!("{name}: {input} gave {got}, want {want}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_case() {
    let named: Vec<&str> = CASES
        .iter()
        .map(|c| c.0.split('/').next().unwrap())
        .collect();
    let missing: Vec<String> = scalar_rules()
        .iter()
        .map(|r| r.name.to_string())
        .filter(|n| !named.contains(&n.as_str()))
        .collect();
    assert!(missing.is_empty(), "rules without a test line: {missing:?}");
}

#[test]
fn tensor_ops_are_left_alone() {
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let zero = int(&mut g, 0);
    let one = int(&mut g, 1);
    let r = op(&mut g, "aten::add", &[x, zero, one], Type::tensor());
    let m = op(&mut g, "aten::mul", &[r, one], Type::tensor());
    g.register_output(m);
    let before = listing(&g);
    let mut cx = PassContext::unlimited("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(false));
    assert_eq!(listing(&g), before);
}

#[test]
fn regions_inside_blocks_are_rewritten_and_names_kept() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let c = g.add_input(Type::Bool);
    let n = g.create(sym::if_(), &[c], 0);
    let r = g.add_node_output(n, Type::Int);
    g.append_node(n);
    let (then_b, else_b) = (g.add_block(n), g.add_block(n));
    let zero =
        crate::passes::testing_fold::constant_in(&mut g, then_b, ConstValue::Int(0), Type::Int);
    let y = crate::passes::testing_fold::op_in(&mut g, then_b, "aten::sub", &[x, zero], Type::Int);
    let z = crate::passes::testing_fold::op_in(&mut g, then_b, "aten::mul", &[y, x], Type::Int);
    g.set_debug_name(z, "z");
    g.block_register_output(then_b, z);
    g.block_register_output(else_b, x);
    g.register_output(r);
    let mut cx = PassContext::unlimited("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(true));
    expect_test::expect![[r#"
        %2 : int = prim::If(%1)
          block():
            %z : int = aten::mul(%0, %0)
            -> (%z)
          block():
            -> (%0)
        -> (%2)
    "#]]
    .assert_eq(&listing(&g));
}

#[test]
fn nothing_changes_when_nothing_is_cheaper() {
    let mut g = Graph::new();
    let (x, y) = (g.add_input(Type::Int), g.add_input(Type::Int));
    let s = op(&mut g, "aten::add", &[x, y], Type::Int);
    let t = op(&mut g, "aten::mul", &[s, y], Type::Int);
    g.register_output(t);
    g.register_output(s);
    let before = listing(&g);
    let mut cx = PassContext::unlimited("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(false));
    assert_eq!(listing(&g), before);
}

#[test]
fn opt_limit_zero_changes_nothing() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let zero = int(&mut g, 0);
    let s = op(&mut g, "aten::add", &[x, zero], Type::Int);
    g.register_output(s);
    let config = crate::passes::PassConfig::parse("", "canonicalize=0").unwrap();
    let mut cx = config.context_for("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(false));
    assert_eq!(g.outputs(), &[s]);
}

#[test]
fn unchanged_nodes_are_kept_and_new_ones_take_names() {
    let mut g = Graph::new();
    let (x, y) = (g.add_input(Type::Int), g.add_input(Type::Int));
    let (zero, one) = (int(&mut g, 0), int(&mut g, 1));
    let a = op(&mut g, "aten::mul", &[x, y], Type::Int);
    g.set_debug_name(a, "a");
    let b = op(&mut g, "aten::add", &[a, zero], Type::Int);
    let c = op(&mut g, "aten::mul", &[x, one], Type::Int);
    let d = op(&mut g, "aten::sub", &[c, y], Type::Int);
    g.set_debug_name(d, "d");
    g.register_output(b);
    g.register_output(d);
    let mut cx = PassContext::unlimited("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(true));
    expect_test::expect![[r#"
        %a : int = aten::mul(%0, %1)
        %d : int = aten::sub(%0, %1)
        -> (%a, %d)
    "#]]
    .assert_eq(&listing(&g));
}

/// A value rebuilt at the end of the region must not be read by an original node kept in
/// place before it (found on `augmented_assign` of the corpus).
#[test]
fn kept_nodes_never_read_values_built_after_them() {
    let mut g = Graph::new();
    let (a, x) = (g.add_input(Type::Int), g.add_input(Type::Float));
    let (one, two) = (int(&mut g, 1), int(&mut g, 2));
    let a5 = op(&mut g, "aten::add", &[a, one], Type::Int);
    let a9 = op(&mut g, "aten::sub", &[a5, two], Type::Int);
    let x5 = op(&mut g, "aten::add", &[x, a9], Type::Float);
    let t = op(
        &mut g,
        "prim::TupleConstruct",
        &[a9, x5],
        Type::tuple(vec![Type::Int, Type::Float]),
    );
    g.register_output(t);
    let mut cx = PassContext::unlimited("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(true));
    expect_test::expect![[r#"
        %8 : int = Int(-1)
        %9 : int = aten::add(%0, %8)
        %10 : float = aten::add(%1, %9)
        %7 : (int, float) = prim::TupleConstruct(%9, %10)
        -> (%7)
    "#]]
    .assert_eq(&listing(&g));
}

#[test]
fn ops_that_may_raise_stay_in_the_graph() {
    let mut g = Graph::new();
    let (x, y) = (g.add_input(Type::Int), g.add_input(Type::Int));
    let zero = int(&mut g, 0);
    let q = op(&mut g, "aten::floordiv", &[x, y], Type::Int);
    let m = op(&mut g, "aten::mul", &[q, zero], Type::Int);
    g.register_output(m);
    let mut cx = PassContext::unlimited("canonicalize");
    assert_eq!(run(&mut g, &mut cx), Ok(true));
    // `x // y` still runs (and raises for y == 0); only its use went.
    expect_test::expect![[r#"
        %2 : int = Int(0)
        %3 : int = aten::floordiv(%0, %1)
        -> (%2)
    "#]]
    .assert_eq(&listing(&g));
}
