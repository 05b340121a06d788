use std::sync::Arc;

use ember_dialects::symbol::sym;
use ember_dialects::types::Type;
use ember_dialects::{AttrValue, Graph, SourceRange, Symbol, Value};

use super::*;
use crate::ivalue::IValue;
use crate::tensor::Tensor;

fn constant(g: &mut Graph, value: AttrValue, ty: Type) -> Value {
    let n = g.create_and_insert(sym::constant(), &[], 1);
    g.set_attr(n, sym::attr_value(), value);
    let v = g.output(n, 0);
    g.set_ty(v, ty);
    v
}

fn op(g: &mut Graph, kind: &str, inputs: &[Value], ty: Type) -> Value {
    let n = g.create_and_insert(Symbol::new(kind), inputs, 1);
    let v = g.output(n, 0);
    g.set_ty(v, ty);
    v
}

/// def f(n: int) -> int: s = 0; for i in range(n): s += i * i; return s
fn sum_of_squares() -> Graph {
    let mut g = Graph::new();
    let n = g.add_input(Type::Int);
    let t = constant(&mut g, AttrValue::Int(1), Type::Bool);
    let zero = constant(&mut g, AttrValue::Int(0), Type::Int);
    let lp = g.create_and_insert(sym::loop_(), &[n, t, zero], 1);
    g.set_ty(g.output(lp, 0), Type::Int);
    let body = g.add_block(lp);
    let i = g.block_add_input(body, Type::Int);
    let s = g.block_add_input(body, Type::Int);
    g.set_insert_point_to_end(body);
    let sq = op(&mut g, "aten::mul", &[i, i], Type::Int);
    let s2 = op(&mut g, "aten::add", &[s, sq], Type::Int);
    g.block_register_output(body, t);
    g.block_register_output(body, s2);
    let out = g.output(lp, 0);
    g.register_output(out);
    g
}

#[test]
fn for_loop_runs_with_the_fast_path() {
    let code = Code::new(&sum_of_squares()).unwrap();
    assert!(code
        .instrs
        .iter()
        .any(|i| matches!(i, Instr::ForNext { .. })));
    assert!(!code
        .instrs
        .iter()
        .any(|i| matches!(i, Instr::LoopNext { .. } | Instr::Op(_))));
    let out = run(&code, vec![IValue::Int(10)]).unwrap();
    assert_eq!(out[0].as_int(), Some(285));
    let out = run(&code, vec![IValue::Int(0)]).unwrap();
    assert_eq!(out[0].as_int(), Some(0));
}

/// def collatz(n: int) -> int: steps = 0; while n != 1: n = n // 2 if n % 2 == 0 else 3 * n + 1; steps += 1; return steps
fn collatz() -> Graph {
    let mut g = Graph::new();
    let n = g.add_input(Type::Int);
    let max = constant(&mut g, AttrValue::Int(i64::MAX), Type::Int);
    let one = constant(&mut g, AttrValue::Int(1), Type::Int);
    let two = constant(&mut g, AttrValue::Int(2), Type::Int);
    let three = constant(&mut g, AttrValue::Int(3), Type::Int);
    let zero = constant(&mut g, AttrValue::Int(0), Type::Int);
    let c0 = op(&mut g, "aten::ne", &[n, one], Type::Bool);
    let lp = g.create_and_insert(sym::loop_(), &[max, c0, n, zero], 2);
    let body = g.add_block(lp);
    let _i = g.block_add_input(body, Type::Int);
    let x = g.block_add_input(body, Type::Int);
    let steps = g.block_add_input(body, Type::Int);
    g.set_insert_point_to_end(body);
    let r = op(&mut g, "aten::remainder", &[x, two], Type::Int);
    let even = op(&mut g, "aten::eq", &[r, zero], Type::Bool);
    let iff = g.create_and_insert(sym::if_(), &[even], 1);
    g.set_ty(g.output(iff, 0), Type::Int);
    let (tb, eb) = (g.add_block(iff), g.add_block(iff));
    g.set_insert_point_to_end(tb);
    let half = op(&mut g, "aten::floordiv", &[x, two], Type::Int);
    g.block_register_output(tb, half);
    g.set_insert_point_to_end(eb);
    let t = op(&mut g, "aten::mul", &[three, x], Type::Int);
    let t1 = op(&mut g, "aten::add", &[t, one], Type::Int);
    g.block_register_output(eb, t1);
    g.set_insert_point_to_end(body);
    let next = g.output(iff, 0);
    let steps2 = op(&mut g, "aten::add", &[steps, one], Type::Int);
    let c = op(&mut g, "aten::ne", &[next, one], Type::Bool);
    g.block_register_output(body, c);
    g.block_register_output(body, next);
    g.block_register_output(body, steps2);
    let out = g.output(lp, 1);
    g.register_output(out);
    g
}

#[test]
fn while_loop_with_branches() {
    let code = Code::new(&collatz()).unwrap();
    assert!(code
        .instrs
        .iter()
        .any(|i| matches!(i, Instr::WhileNext { .. })));
    assert!(!code
        .instrs
        .iter()
        .any(|i| matches!(i, Instr::ForNext { .. } | Instr::LoopNext { .. })));
    for (n, steps) in [(1, 0), (6, 8), (27, 111), (97, 118)] {
        assert_eq!(
            run(&code, vec![IValue::Int(n)]).unwrap()[0].as_int(),
            Some(steps),
            "collatz({n})"
        );
    }
}

#[test]
fn moves_at_last_use_and_drops_after_branches() {
    // def f(x: Tensor, c: bool, w: Tensor): y = relu(x); if c: z = y * y else: z = w; return z
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let c = g.add_input(Type::Bool);
    let w = g.add_input(Type::tensor());
    let y = op(&mut g, "aten::relu", &[x], Type::tensor());
    let iff = g.create_and_insert(sym::if_(), &[c], 1);
    g.set_ty(g.output(iff, 0), Type::tensor());
    let (tb, eb) = (g.add_block(iff), g.add_block(iff));
    g.set_insert_point_to_end(tb);
    let z = op(&mut g, "aten::mul", &[y, y], Type::tensor());
    g.block_register_output(tb, z);
    g.block_register_output(eb, w);
    g.set_insert_point_to_end(g.block());
    let out = g.output(iff, 0);
    g.register_output(out);
    let code = Code::new(&g).unwrap();
    use Instr::*;
    // Registers: x 0, c 1, w 2, y 3, the If's output 4 (the then branch computes into it).
    #[rustfmt::skip]
    let expected = vec![
        Move(0), Op(0), Store(3),                  // y = relu(x); x's only use moves it
        JumpIfFalse { cond: 1, target: 9 },        // if c
        Load(3), Move(3), Op(1), Store(4),         //   z = y * y; the second use moves y
        Jump(10),
        Take { src: 2, dst: 4 },                   // else: z = w, w's last use
        Drop(3), Drop(2),                          // y and w die on the other path
        Move(4), Ret,
    ];
    assert_eq!(code.instrs, expected);
    let t = |v: f32| IValue::Tensor(Tensor::from_vec(vec![v], &[1]).unwrap());
    let value = |out: Vec<IValue>| match &out[0] {
        IValue::Tensor(t) => t.item_f64().unwrap(),
        other => panic!("expected a tensor, got {}", other.kind_name()),
    };
    let run_with = |c: bool| run(&code, vec![t(-2.0), IValue::Bool(c), t(7.0)]).unwrap();
    assert_eq!(value(run_with(true)), 0.0);
    let run_with = |c: bool| run(&code, vec![t(3.0), IValue::Bool(c), t(7.0)]).unwrap();
    assert_eq!(value(run_with(true)), 9.0);
    assert_eq!(value(run_with(false)), 7.0);
}

#[test]
fn raised_errors_carry_the_node_and_source() {
    let mut g = Graph::new();
    let msg = constant(&mut g, AttrValue::Str("boom".into()), Type::Str);
    let cls = constant(
        &mut g,
        AttrValue::Str("builtins.ValueError".into()),
        Type::Str,
    );
    let n = g.create_and_insert(sym::raise_exception(), &[msg, cls], 0);
    g.set_source_range(
        n,
        Some(SourceRange {
            file: Arc::from("f.py"),
            line: 3,
            col: 4,
        }),
    );
    let code = Code::new(&g).unwrap();
    let err = run(&code, vec![]).unwrap_err();
    assert_eq!(err.message, "ValueError: boom");
    assert_eq!(
        err.to_string(),
        "ValueError: boom\n  in prim::RaiseException at f.py:3:4"
    );
}

#[test]
fn unknown_operators_are_refused_when_code_is_built() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let y = op(&mut g, "mylib::frobnicate", &[x], Type::Int);
    g.register_output(y);
    let err = Code::new(&g).err().unwrap();
    assert_eq!(
        err.message,
        "unknown operator 'mylib::frobnicate': Ember has no implementation of it"
    );
    assert!(run(&Code::new(&sum_of_squares()).unwrap(), vec![]).is_err());
}
