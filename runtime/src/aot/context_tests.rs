use super::*;
use crate::tensor::Tensor;
use ember_dialects::parse::parse_graph;

const GRAPH: &str = "graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %y : Tensor = aten::add(%x, %x, %one) # t.py:3:4
  %m : int = aten::mul(%n, %one) # t.py:4:4
  %l : Tensor[] = prim::ListConstruct(%y, %x)
  %z : Tensor = aten::cat(%l, %zero) # t.py:6:8
  %h : float = prim::Constant[value=0.5]()
  %b : bool = aten::gt(%m, %zero)
  return (%z)
";

fn program() -> Program {
    Program::new(parse_graph(GRAPH).unwrap())
}

fn floats(v: &[f32]) -> IValue {
    IValue::Tensor(Tensor::from_vec(v.to_vec(), &[v.len() as i64]).unwrap())
}

fn values(v: &IValue) -> Vec<f32> {
    v.as_tensor().unwrap().contiguous().unwrap().to_vec::<f32>()
}

/// Calls `ember_rt_op` as compiled code does.
fn op(cx: &mut Context, node: i64, args: &[i64], outs: &mut [i64]) -> i32 {
    // SAFETY: a live context; the arrays have one entry per input and output.
    unsafe { ember_rt_op(cx.as_ptr(), node, args.as_ptr(), outs.as_mut_ptr()) }
}

#[test]
fn runs_nodes_on_registers_and_scalars() {
    let p = program();
    assert_eq!(p.num_nodes(), 8);
    let mut cx = Context::new(&p, 8);
    cx.set(0, floats(&[1.0, 2.0, 3.0])).unwrap();
    let mut out = [0i64];
    assert_eq!(op(&mut cx, 0, &[], &mut out), 0);
    assert_eq!(out, [1], "constants give their value");
    assert_eq!(op(&mut cx, 1, &[], &mut out), 0);
    assert_eq!(out, [0]);
    // %y = add(copy r0, copy r0, 1) into r2: the register keeps its value.
    assert_eq!(op(&mut cx, 2, &[0, 0, 1], &mut [2]), 0);
    assert!(cx.holds(0));
    assert_eq!(values(cx.regs[2].as_ref().unwrap()), [2.0, 4.0, 6.0]);
    // %m = mul(5, 1): scalars in and out.
    let mut m = [0i64];
    assert_eq!(op(&mut cx, 3, &[5, 1], &mut m), 0);
    assert_eq!(m, [5]);
    // The list: copy r2, then move r0 (its last use).
    assert_eq!(op(&mut cx, 4, &[2, -1], &mut [3]), 0);
    assert!(!cx.holds(0), "moved");
    assert!(cx.holds(2), "copied");
    // %z = cat(move r3, 0) into r4.
    assert_eq!(op(&mut cx, 5, &[-4, 0], &mut [4]), 0);
    assert!(!cx.holds(3));
    assert_eq!(values(&cx.take(4).unwrap()), [2.0, 4.0, 6.0, 1.0, 2.0, 3.0]);
    // A float constant's bits, a bool.
    let mut h = [0i64];
    assert_eq!(op(&mut cx, 6, &[], &mut h), 0);
    assert_eq!(f64::from_bits(h[0] as u64), 0.5);
    let mut b = [7i64];
    assert_eq!(op(&mut cx, 7, &[5, 0], &mut b), 0);
    assert_eq!(b, [1]);
    assert!(cx.error().is_none());
}

#[test]
fn a_copy_then_a_move_of_one_register_in_one_call() {
    let p = program();
    let mut cx = Context::new(&p, 4);
    cx.set(0, floats(&[1.0])).unwrap();
    assert_eq!(op(&mut cx, 2, &[0, -1, 1], &mut [0]), 0);
    assert_eq!(
        values(&cx.take(0).unwrap()),
        [2.0],
        "output replaced the input"
    );
}

#[test]
fn errors_name_the_node_and_its_source_and_fail_fast() {
    let p = program();
    let mut cx = Context::new(&p, 4);
    // Register 0 is empty.
    assert_eq!(op(&mut cx, 2, &[0, 0, 1], &mut [1]), 1);
    let e = cx.error().unwrap().to_string();
    assert!(e.contains("register 0 is empty"), "{e}");
    assert!(e.contains("aten::add at t.py:3:4"), "{e}");
    // Every later call fails at once: scalar outputs zeroed, registers untouched.
    cx.set(0, floats(&[1.0])).unwrap();
    let mut out = [77i64];
    assert_eq!(op(&mut cx, 0, &[], &mut out), 1);
    assert_eq!(out, [0]);
    assert_eq!(op(&mut cx, 2, &[-1, 0, 1], &mut [2]), 1);
    assert!(cx.holds(0) && !cx.holds(2));
    // SAFETY: a live context.
    assert_eq!(unsafe { ember_rt_failed(cx.as_ptr()) }, 1);
    assert_eq!(
        cx.error().unwrap().to_string(),
        e,
        "the first error is kept"
    );
}

#[test]
fn operator_errors_carry_the_location() {
    let p = program();
    let mut cx = Context::new(&p, 4);
    // cat of a 1-D and a 2-D tensor.
    let two_d = IValue::Tensor(Tensor::from_vec(vec![1f32; 4], &[2, 2]).unwrap());
    cx.set(0, IValue::list(vec![floats(&[1.0]), two_d]))
        .unwrap();
    assert_eq!(op(&mut cx, 5, &[0, 0], &mut [1]), 1);
    let e = cx.error().unwrap();
    assert_eq!(e.kind, Some(Symbol::new("aten::cat")));
    assert!(e.to_string().ends_with("in aten::cat at t.py:6:8"), "{e}");
}

#[test]
fn bad_calls_are_errors_not_crashes() {
    let p = program();
    let mut cx = Context::new(&p, 2);
    assert_eq!(op(&mut cx, 99, &[], &mut []), 1);
    assert!(cx.error().unwrap().message.contains("node 99"));
    let mut cx = Context::new(&p, 2);
    assert_eq!(op(&mut cx, 2, &[7, 7, 1], &mut [0]), 1);
    assert!(cx
        .error()
        .unwrap()
        .message
        .contains("register 7 out of range"));
    let mut cx = Context::new(&p, 2);
    // SAFETY: null arrays are refused, not read.
    let rc = unsafe { ember_rt_op(cx.as_ptr(), 2, std::ptr::null(), std::ptr::null_mut()) };
    assert_eq!(rc, 1);
    assert!(cx.error().unwrap().message.contains("null"));
    // SAFETY: a null context is refused.
    unsafe {
        assert_eq!(
            ember_rt_op(
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
                std::ptr::null_mut()
            ),
            1
        );
        assert_eq!(ember_rt_failed(std::ptr::null_mut()), 1);
        ember_rt_drop(std::ptr::null_mut(), 0);
    }
}

#[test]
fn box_unbox_copy_move_drop() {
    let p = program();
    let mut cx = Context::new(&p, 4);
    let ctx = cx.as_ptr();
    // SAFETY: `ctx` is the live context above, used by this thread only.
    unsafe {
        ember_rt_box(ctx, 0, 0, -42);
        ember_rt_box(ctx, 1, 1, 2.5f64.to_bits() as i64);
        ember_rt_box(ctx, 2, 2, 1);
        assert_eq!(ember_rt_unbox(ctx, 0), -42);
        assert_eq!(f64::from_bits(ember_rt_unbox(ctx, 1) as u64), 2.5);
        assert_eq!(ember_rt_unbox(ctx, 2), 1);
        ember_rt_copy(ctx, 3, 0);
        assert_eq!(ember_rt_unbox(ctx, 3), -42);
        assert_eq!(ember_rt_unbox(ctx, 0), -42, "copy keeps the source");
        ember_rt_move(ctx, 3, 1);
        ember_rt_move(ctx, 2, 2);
        assert_eq!(ember_rt_failed(ctx), 0);
    }
    assert!(!cx.holds(1), "move empties the source");
    assert!(cx.holds(2), "moving to itself is a no-op");
    assert_eq!(cx.regs[3].as_ref().and_then(IValue::as_double), Some(2.5));
    let ctx = cx.as_ptr();
    // SAFETY: as above.
    unsafe {
        ember_rt_drop(ctx, 3);
        ember_rt_drop(ctx, 3);
        assert_eq!(
            ember_rt_failed(ctx),
            0,
            "dropping an empty register is fine"
        );
    }
    assert!(!cx.holds(3));
    cx.set(3, floats(&[1.0])).unwrap();
    let ctx = cx.as_ptr();
    // SAFETY: as above.
    unsafe {
        assert_eq!(ember_rt_unbox(ctx, 3), 0);
    }
    assert!(
        cx.error()
            .unwrap()
            .message
            .contains("cannot unbox a Tensor"),
        "{:?}",
        cx.error()
    );

    let mut cx = Context::new(&p, 2);
    let ctx = cx.as_ptr();
    // SAFETY: as above.
    unsafe { ember_rt_box(ctx, 0, 9, 0) };
    assert!(cx.error().unwrap().message.contains("unknown kind 9"));
    let mut cx = Context::new(&p, 2);
    let ctx = cx.as_ptr();
    // SAFETY: as above.
    unsafe { ember_rt_copy(ctx, 1, 0) };
    assert!(cx.error().unwrap().message.contains("register 0 is empty"));
    let mut cx = Context::new(&p, 2);
    let ctx = cx.as_ptr();
    // SAFETY: as above.
    unsafe { ember_rt_move(ctx, 5, 0) };
    assert!(cx
        .error()
        .unwrap()
        .message
        .contains("register 5 out of range"));
}

#[test]
fn interpreter_only_nodes_are_refused_clearly() {
    let g = parse_graph(
        "graph(%c : bool, %x : Tensor):
  %y : Tensor = prim::If(%c) # b.py:2:4
    block0():
      -> (%x)
    block1():
      -> (%x)
  return (%y)
",
    )
    .unwrap();
    let p = Program::new(g);
    let mut cx = Context::new(&p, 2);
    cx.set(1, floats(&[1.0])).unwrap();
    assert_eq!(op(&mut cx, 0, &[1, 1], &mut [0]), 1);
    let e = cx.error().unwrap().to_string();
    assert!(e.contains("cannot run 'prim::If'"), "{e}");
    assert!(e.contains("b.py:2:4"), "{e}");
}

#[test]
fn unknown_operators_are_load_errors_at_their_node() {
    let g = parse_graph(
        "graph(%x : Tensor):
  %y : Tensor = aten::no_such_op(%x) # u.py:1:2
  return (%y)
",
    )
    .unwrap();
    let p = Program::new(g);
    let mut cx = Context::new(&p, 2);
    cx.set(0, floats(&[1.0])).unwrap();
    assert_eq!(op(&mut cx, 0, &[0], &mut [1]), 1);
    let e = cx.error().unwrap().to_string();
    assert!(
        e.contains("unknown operator 'aten::no_such_op'") && e.contains("u.py:1:2"),
        "{e}"
    );
}

#[test]
fn the_symbols_a_jit_binds() {
    let symbols = rt_symbols();
    let mut names: Vec<&str> = symbols.iter().map(|s| s.0).collect();
    names.dedup();
    assert_eq!(names.len(), 8);
    assert!(symbols
        .iter()
        .all(|s| s.0.starts_with("ember_rt_") && s.1 != 0));
    let op = symbols.iter().find(|s| s.0 == "ember_rt_op").unwrap().1;
    assert_eq!(op, ember_rt_op as *const () as usize);
}

/// Compiled loops read the failure flag as the `int32_t` at offset 0 of the context, with
/// `ember_rt_failed` answering the same.
#[test]
fn the_failure_flag_is_the_contexts_first_int() {
    let p = program();
    let mut cx = Context::new(&p, 2);
    let flag = |cx: &mut Context| {
        let ptr = cx.as_ptr();
        // SAFETY: a live context; `Context` is `repr(C)` with the flag first.
        unsafe { (*(ptr as *const i32), ember_rt_failed(ptr)) }
    };
    assert_eq!(flag(&mut cx), (0, 0));
    assert_eq!(op(&mut cx, 99, &[], &mut []), 1);
    assert_eq!(flag(&mut cx), (1, 1));
}
