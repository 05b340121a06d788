use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::aot::context::{ember_rt_failed, ember_rt_op};
use crate::aot::test_support::leak_aligned;
use crate::tensor::Tensor;

const GRAPH: &str = "graph(%x : Tensor,
      %w : Float(3, strides=[1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %w) # m.py:2:4
  %z : Tensor = aten::add(%y, %x, %one) # m.py:3:4
  return (%z)
";

const GUARD: &str = "Float(3, strides=[1], requires_grad=0, device=cpu)";

fn bundle() -> Bundle {
    Bundle {
        graph_text: GRAPH.into(),
        n_user_inputs: 1,
        input_names: vec!["x".into()],
        guard_types: vec![GUARD.into()],
        defaults: String::new(),
        weights: vec![Tensor::from_vec(vec![0.5f32, 1.5, 2.5], &[3]).unwrap()],
        memory_plan: None,
    }
}

fn floats(v: &[f32]) -> IValue {
    IValue::Tensor(Tensor::from_vec(v.to_vec(), &[v.len() as i64]).unwrap())
}

fn values(v: &IValue) -> Vec<f32> {
    v.as_tensor().unwrap().contiguous().unwrap().to_vec::<f32>()
}

/// How many times [`entry`] ran: proof that the compiled path was taken.
static ENTRY_CALLS: AtomicUsize = AtomicUsize::new(0);

/// The graph compiled by hand, as `emberc` would: registers 0 (x) and 1 (w) are the inputs,
/// 2 the output, 3 a temporary.
unsafe extern "C" fn entry(ctx: *mut c_void) -> i32 {
    ENTRY_CALLS.fetch_add(1, Ordering::Relaxed);
    let mut one = [0i64];
    ember_rt_op(ctx, 0, std::ptr::null(), one.as_mut_ptr());
    ember_rt_op(ctx, 1, [0, 1].as_ptr(), [3].as_mut_ptr());
    ember_rt_op(ctx, 2, [-4, -1, one[0]].as_ptr(), [2].as_mut_ptr());
    ember_rt_failed(ctx)
}

/// Compiled code that fails in its second op (it reads an empty register).
unsafe extern "C" fn failing_entry(ctx: *mut c_void) -> i32 {
    let mut one = [0i64];
    ember_rt_op(ctx, 0, std::ptr::null(), one.as_mut_ptr());
    ember_rt_op(ctx, 1, [5, 1].as_ptr(), [3].as_mut_ptr());
    ember_rt_op(ctx, 2, [-4, -1, one[0]].as_ptr(), [2].as_mut_ptr());
    ember_rt_failed(ctx)
}

/// Compiled code that forgets its output.
unsafe extern "C" fn forgetful_entry(_ctx: *mut c_void) -> i32 {
    0
}

fn model(entry: Option<EntryFn>) -> CompiledModel {
    // SAFETY: the entries above follow the contract for GRAPH with 6 registers.
    let mut m = unsafe { CompiledModel::from_parts(bundle(), entry, 6) }.unwrap();
    m.set_interpret_only(false);
    m
}

fn expected(x: &[f32]) -> Vec<f32> {
    let w = [0.5f32, 1.5, 2.5];
    x.iter().zip(w).map(|(x, w)| x * w + x).collect()
}

#[test]
fn without_entry_the_interpreter_runs() {
    let m = model(None);
    assert_eq!(m.input_names(), ["x"]);
    let out = m.run(vec![floats(&[1.0, 2.0, 3.0])]).unwrap();
    assert_eq!(values(&out), expected(&[1.0, 2.0, 3.0]));
}

#[test]
fn compiled_code_runs_when_the_guards_hold_and_the_interpreter_otherwise() {
    let m = model(Some(entry));
    let before = ENTRY_CALLS.load(Ordering::Relaxed);
    let out = m.run(vec![floats(&[1.0, 2.0, 3.0])]).unwrap();
    assert_eq!(values(&out), expected(&[1.0, 2.0, 3.0]));
    assert!(ENTRY_CALLS.load(Ordering::Relaxed) > before);

    // Size 1 broadcasts: a shape the code was not specialized for runs interpreted.
    assert!(!m.guards_hold(&[floats(&[2.0])]));
    let out = m.run(vec![floats(&[2.0])]).unwrap();
    assert_eq!(values(&out), [3.0, 5.0, 7.0]);
    // A float64 input: the dtype guard fails.
    let doubles = IValue::Tensor(Tensor::from_vec(vec![1f64, 1.0, 1.0], &[3]).unwrap());
    assert!(!m.guards_hold(std::slice::from_ref(&doubles)));
    let out = m.run(vec![doubles]).unwrap();
    let got = out.as_tensor().unwrap().to_vec::<f64>();
    assert_eq!(got, [1.5, 2.5, 3.5]);

    // Interpreted and compiled agree.
    let x = floats(&[-1.0, 0.25, 8.0]);
    let a = m.run(vec![x.clone()]).unwrap();
    let b = m.run_interpreted(vec![x]).unwrap();
    assert_eq!(values(&a), values(&b));
}

#[test]
fn interpret_only_skips_the_compiled_code() {
    let mut m = model(Some(failing_entry));
    assert!(m.run(vec![floats(&[1.0, 2.0, 3.0])]).is_err());
    m.set_interpret_only(true);
    let out = m.run(vec![floats(&[1.0, 2.0, 3.0])]).unwrap();
    assert_eq!(values(&out), expected(&[1.0, 2.0, 3.0]));
    assert_eq!(interpret_only_from(None), Ok(false));
    assert_eq!(interpret_only_from(Some("")), Ok(false));
    assert_eq!(interpret_only_from(Some("interpret")), Ok(true));
    assert!(interpret_only_from(Some("fast"))
        .unwrap_err()
        .contains("not a mode"));
}

#[test]
fn compiled_errors_name_the_node() {
    let m = model(Some(failing_entry));
    let e = m.run(vec![floats(&[1.0, 2.0, 3.0])]).unwrap_err();
    assert!(e.contains("register 5 is empty"), "{e}");
    assert!(e.contains("aten::mul at m.py:2:4"), "{e}");
    let m = model(Some(forgetful_entry));
    let e = m.run(vec![floats(&[1.0, 2.0, 3.0])]).unwrap_err();
    assert!(e.contains("left output 0 unset"), "{e}");
}

#[test]
fn interpreter_errors_name_the_node() {
    let m = model(None);
    // Sizes 2 and 3 do not broadcast.
    let e = m.run(vec![floats(&[1.0, 2.0])]).unwrap_err();
    assert!(e.contains("m.py:2:4"), "{e}");
    let e = m.run(vec![]).unwrap_err();
    assert!(e.contains("takes 1 inputs (x), got 0"), "{e}");
}

#[test]
fn bad_parts_are_refused() {
    // SAFETY (every call): no entry, or `entry`, which follows the contract.
    let err = |b: Bundle, regs: usize| {
        unsafe { CompiledModel::from_parts(b, Some(entry), regs) }.unwrap_err()
    };
    assert!(err(bundle(), 2).contains("2 registers cannot hold"));
    let mut b = bundle();
    b.weights.clear();
    assert!(err(b, 6).contains("has 2 inputs"));
    let mut b = bundle();
    b.guard_types[0] = "Float(3,".into();
    assert!(err(b, 6).contains("guard type of input 'x'"));
    let mut b = bundle();
    b.weights[0] = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    assert!(err(b, 6).contains("weight 0 does not have the type"));
    let mut b = bundle();
    b.graph_text = "graph(".into();
    assert!(err(b, 6).contains("the bundle's graph"));
}

#[test]
fn concurrent_runs_are_independent() {
    let m = model(Some(entry));
    std::thread::scope(|s| {
        for t in 0..4 {
            let m = &m;
            s.spawn(move || {
                for i in 0..25 {
                    let x = [t as f32, i as f32, 1.0];
                    // Odd calls take the interpreter (a broadcasting shape).
                    if i % 2 == 0 {
                        let out = m.run(vec![floats(&x)]).unwrap();
                        assert_eq!(values(&out), expected(&x));
                    } else {
                        let out = m.run(vec![floats(&x[..1])]).unwrap();
                        assert_eq!(values(&out), expected(&[x[0]; 3]));
                    }
                }
            });
        }
    });
}

fn described(
    bytes: &'static [u8],
    flags: u32,
    entry: Option<EntryFn>,
) -> *mut ember_compiled_model {
    Box::into_raw(Box::new(ember_compiled_model {
        abi_version: EMBER_ABI_VERSION,
        flags,
        name: c"tiny".as_ptr(),
        method: c"forward".as_ptr(),
        bundle: bytes.as_ptr(),
        bundle_len: bytes.len() as u64,
        entry,
        num_registers: 6,
    }))
}

#[test]
fn opens_an_object_files_description() {
    let (bytes, _) = bundle().to_bytes(false);
    let stat = leak_aligned(&bytes);
    // SAFETY: a well-formed description with a contract-abiding entry.
    let m = unsafe { CompiledModel::open(&*described(stat, 0, Some(entry)), None) }.unwrap();
    assert_eq!(m.name(), "tiny.forward");
    let out = m.run(vec![floats(&[1.0, 2.0, 3.0])]).unwrap();
    assert_eq!(values(&out), expected(&[1.0, 2.0, 3.0]));

    // SAFETY (below): descriptions whose faults are in checked fields.
    let e = unsafe { CompiledModel::open(&*described(stat, 1, None), None) }.unwrap_err();
    assert!(e.contains("disagree"), "{e}");
    let mut bad = described(stat, 0, None);
    unsafe { (*bad).abi_version = 7 };
    let e = unsafe { CompiledModel::open(&*bad, None) }.unwrap_err();
    assert!(e.contains("ABI version 7"), "{e}");
    bad = described(stat, 0, None);
    unsafe { (*bad).bundle = std::ptr::null() };
    let e = unsafe { CompiledModel::open(&*bad, None) }.unwrap_err();
    assert!(e.contains("null"), "{e}");
}

#[test]
fn inputs_left_out_take_their_defaults() {
    let mut b = bundle();
    b.graph_text = "graph(%x : Tensor, %k : float, %w : Tensor):
  %y : Tensor = aten::mul(%x, %k)
  return (%y)
"
    .into();
    b.n_user_inputs = 2;
    b.input_names = vec!["x".into(), "k".into()];
    b.guard_types = vec!["Tensor".into(), "float".into()];
    b.defaults = "graph():\n  %0 : float = prim::Constant[value=3.]()\n  return (%0)\n".into();
    let m = unsafe { CompiledModel::from_parts(b, None, 0) }.unwrap();
    assert_eq!(
        values(&m.run(vec![floats(&[1.0, 2.0])]).unwrap()),
        [3.0, 6.0]
    );
    assert_eq!(
        values(&m.run(vec![floats(&[1.0]), IValue::Double(0.5)]).unwrap()),
        [0.5]
    );
    let err = m.run(vec![]).unwrap_err();
    assert!(err.contains("takes 1 to 2 inputs (x, k), got 0"), "{err}");
}
