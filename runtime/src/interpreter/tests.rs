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

fn unit_with(functions: &[(&str, &str)]) -> Arc<crate::unit::CompilationUnit> {
    let unit = Arc::new(crate::unit::CompilationUnit::new());
    for (name, text) in functions {
        let g = ember_dialects::parse::parse_graph(text).unwrap();
        unit.add_function(crate::unit::Function::new(*name, g));
    }
    unit
}

const RATIO: &str = "graph(%a : int, %b : int):
  %q : int = aten::floordiv(%a, %b) # h.py:2:11
  return (%q)
";

/// `helper2(a, b) = ratio(a, b) + 1`, called from a loop: both calls are inlined.
const HELPER2: &str = "graph(%a : int, %b : int):
  %one : int = prim::Constant[value=1]()
  %f : Function = prim::Constant[name=\"ratio\"]()
  %r : int = prim::CallFunction(%f, %a, %b) # h.py:5:8
  %s : int = aten::add(%r, %one) # h.py:5:8
  return (%s)
";

const LOOP_CALLER: &str = "graph(%n : int, %d : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %f : Function = prim::Constant[name=\"helper2\"]()
  %s : int = prim::Loop(%n, %t, %zero) # c.py:3:4
    block0(%i : int, %acc : int):
      %b : int = aten::sub(%d, %i) # c.py:4:25
      %r : int = prim::CallFunction(%f, %i, %b) # c.py:4:14
      %acc2 : int = aten::add(%acc, %r) # c.py:4:8
      -> (%t, %acc2)
  return (%s)
";

#[test]
fn small_callees_are_inlined_and_errors_keep_their_frames() {
    let unit = unit_with(&[("ratio", RATIO), ("helper2", HELPER2)]);
    let g = ember_dialects::parse::parse_graph(LOOP_CALLER).unwrap();
    let code = Code::with_unit(&g, &unit).unwrap();
    assert!(!code.instrs.iter().any(|i| matches!(i, Instr::Call(_))));
    // sum over i < 3 of i // (10 - i) + 1
    let out = run(&code, vec![IValue::Int(3), IValue::Int(10)]).unwrap();
    assert_eq!(out[0].as_int(), Some(3));
    // i reaches d: ratio divides by zero, two calls deep.
    let err = run(&code, vec![IValue::Int(5), IValue::Int(2)]).unwrap_err();
    assert_eq!(err.message, "division by 0");
    let frames: Vec<String> = err.call_stack.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        frames,
        [
            "in <graph>: prim::CallFunction at c.py:4:14",
            "in helper2: prim::CallFunction at h.py:5:8",
            "in ratio: aten::floordiv at h.py:2:11",
        ]
    );
    // The error surfaces at the caller's call node, and its node is the callee's.
    let call = g
        .block_nodes(g.block())
        .find(|&n| g.kind(n) == sym::loop_())
        .and_then(|l| g.block_nodes(g.node_blocks(l)[0]).nth(1))
        .unwrap();
    assert_eq!(err.top_node(), Some(call));
    let ratio = unit.function("ratio").unwrap();
    let floordiv = ratio.graph.block_nodes(ratio.graph.block()).next().unwrap();
    assert_eq!(err.node, Some(floordiv));
}

#[test]
fn a_hook_claims_nodes_inside_branches_and_loops() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // for i in range(n): if i < k: s = s + i  (the hook makes `+` a `*` and `<` always true)
    let text = "graph(%n : int, %k : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %s : int = prim::Loop(%n, %t, %one)
    block0(%i : int, %acc : int):
      %c : bool = aten::lt(%i, %k)
      %r : int = prim::If(%c)
        block0():
          %p : int = aten::add(%acc, %i)
          -> (%p)
        block1():
          -> (%acc)
      -> (%t, %r)
  return (%s)
";
    let g = ember_dialects::parse::parse_graph(text).unwrap();
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let hook =
        |g: &Graph, n: ember_dialects::Node| -> Option<Result<crate::ops::Operation, String>> {
            let kind = g.kind(n).as_str();
            let op: crate::ops::Operation = match kind {
                "aten::add" => Arc::new(|s: &mut crate::ops::Stack| {
                    CALLS.fetch_add(1, Ordering::Relaxed);
                    let b = s.pop().unwrap().as_int().unwrap();
                    let a = s.pop().unwrap().as_int().unwrap();
                    s.push(IValue::Int(a * (b + 1)));
                    Ok(())
                }),
                "aten::lt" => Arc::new(|s: &mut crate::ops::Stack| {
                    CALLS.fetch_add(1, Ordering::Relaxed);
                    s.truncate(s.len() - 2);
                    s.push(IValue::Bool(true));
                    Ok(())
                }),
                _ => return None,
            };
            Some(Ok(op))
        };
    let code = Code::build_with(&g, None, "<graph>", Some(&hook)).unwrap();
    assert_eq!(
        code.instrs
            .iter()
            .filter(|i| matches!(i, Instr::Op(_)))
            .count(),
        2
    );
    let out = run(&code, vec![IValue::Int(4), IValue::Int(0)]).unwrap();
    assert_eq!(out[0].as_int(), Some(24)); // 1 * 1 * 2 * 3 * 4
    assert_eq!(CALLS.load(Ordering::Relaxed), 8);
    // Without the hook the same graph runs its own operators.
    let plain = Code::new(&g).unwrap();
    let out = run(&plain, vec![IValue::Int(4), IValue::Int(2)]).unwrap();
    assert_eq!(out[0].as_int(), Some(2)); // 1 + 0 + 1
}

#[test]
fn carried_tensors_swap_and_a_branch_returns_one_value_twice() {
    // a, b = b, a + b over tensors; then an If returning (b, b).
    let text = "graph(%n : int, %x : Tensor, %y : Tensor, %c : bool):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor, %b : Tensor = prim::Loop(%n, %t, %x, %y)
    block0(%i : int, %a1 : Tensor, %b1 : Tensor):
      %s : Tensor = aten::add(%a1, %b1, %one)
      -> (%t, %b1, %s)
  %p : Tensor, %q : Tensor = prim::If(%c)
    block0():
      %w : Tensor = aten::neg(%b)
      -> (%w, %w)
    block1():
      -> (%a, %b)
  return (%p, %q)
";
    let g = ember_dialects::parse::parse_graph(text).unwrap();
    let code = Code::new(&g).unwrap();
    let t = |v: f32| IValue::Tensor(Tensor::from_vec(vec![v], &[1]).unwrap());
    let value = |v: &IValue| v.as_tensor().unwrap().item_f64().unwrap();
    for (c, want) in [(true, (-13.0, -13.0)), (false, (8.0, 13.0))] {
        let out = run(&code, vec![IValue::Int(4), t(1.0), t(2.0), IValue::Bool(c)]).unwrap();
        assert_eq!((value(&out[0]), value(&out[1])), want, "c = {c}");
    }
    let out = run(
        &code,
        vec![IValue::Int(0), t(1.0), t(2.0), IValue::Bool(false)],
    )
    .unwrap();
    assert_eq!((value(&out[0]), value(&out[1])), (1.0, 2.0));
}

#[test]
fn inlined_callees_read_kept_arguments_in_place_and_take_the_last_uses() {
    // helper(t) = relu(t): its only use of t would move it out of its register.
    let helper = "graph(%t : Tensor):
  %r : Tensor = aten::relu(%t)
  return (%r)
";
    // y = helper(x); z = helper(w); return x + y, z   (x is used again, w is not)
    let caller = "graph(%x : Tensor, %w : Tensor):
  %one : int = prim::Constant[value=1]()
  %f : Function = prim::Constant[name=\"helper\"]()
  %y : Tensor = prim::CallFunction(%f, %x)
  %z : Tensor = prim::CallFunction(%f, %w)
  %s : Tensor = aten::add(%x, %y, %one)
  return (%s, %z)
";
    let unit = unit_with(&[("helper", helper)]);
    let code =
        Code::with_unit(&ember_dialects::parse::parse_graph(caller).unwrap(), &unit).unwrap();
    assert!(!code.instrs.iter().any(|i| matches!(i, Instr::Call(_))));
    // x stays in its register for the add; w is taken into the callee's.
    assert_eq!(
        code.instrs
            .iter()
            .filter(|i| matches!(i, Instr::Take { src: 1, .. }))
            .count(),
        1
    );
    let t = |v: f32| IValue::Tensor(Tensor::from_vec(vec![v], &[1]).unwrap());
    let out = run(&code, vec![t(2.0), t(-3.0)]).unwrap();
    let value = |v: &IValue| v.as_tensor().unwrap().item_f64().unwrap();
    assert_eq!((value(&out[0]), value(&out[1])), (4.0, 0.0));
}
