//! Code with nodes the runtime has no operation for: refused when built by default
//! (`MissingOperators::Refuse`), or built to raise the same message, at the node with its
//! source location, only when execution reaches it (`RaiseWhenRun`), in the code itself, in
//! functions it calls through a unit, and in function constants' subgraphs.

use std::sync::Arc;

use ember_dialects::parse::parse_graph;
use ember_runtime::interpreter::{call_function, run, Code, MissingOperators};
use ember_runtime::ivalue::IValue;
use ember_runtime::unit::{CompilationUnit, Function};

/// `f(c, x)`: `mylib::frobnicate(x)` if `c`, else `x + 1`.
const BRANCH: &str = r#"graph(%c : bool,
      %x : int):
  %one : int = prim::Constant[value=1]()
  %r : int = prim::If(%c)
    block0():
      %y : int = mylib::frobnicate(%x) # model.py:3:8
      -> (%y)
    block1():
      %z : int = aten::add(%x, %one) # model.py:5:8
      -> (%z)
  return (%r)
"#;

const UNKNOWN: &str = "unknown operator 'mylib::frobnicate': Ember has no implementation of it";

fn lenient(text: &str) -> Code {
    let g = parse_graph(text).unwrap();
    Code::build_with_options(&g, None, "f", None, MissingOperators::RaiseWhenRun).unwrap()
}

#[test]
fn refused_by_default() {
    let g = parse_graph(BRANCH).unwrap();
    let err = Code::new(&g).err().unwrap();
    assert_eq!(err.message, UNKNOWN);
    assert_eq!(err.source.unwrap().to_string(), "model.py:3:8");
}

#[test]
fn raised_only_when_reached() {
    let code = lenient(BRANCH);
    assert_eq!(code.missing.len(), 1);
    assert_eq!(code.missing[0].message, UNKNOWN);
    assert_eq!(code.missing[0].kind.as_str(), "mylib::frobnicate");
    let out = run(&code, vec![IValue::Bool(false), IValue::Int(2)]).unwrap();
    assert_eq!(out[0].as_int(), Some(3));
    let err = run(&code, vec![IValue::Bool(true), IValue::Int(2)]).unwrap_err();
    assert_eq!(err.message, UNKNOWN);
    assert_eq!(
        err.to_string(),
        format!("{UNKNOWN}\n  in mylib::frobnicate at model.py:3:8")
    );
}

/// A constant the runtime cannot make is not evaluated while building: it raises where it is.
#[test]
fn constants_that_cannot_run_raise_when_reached() {
    let text = r#"graph(%c : bool):
  %r : int[] = prim::If(%c)
    block0():
      %e : int[] = prim::Constant[value=mylib.Weird()]() # model.py:2:4
      -> (%e)
    block1():
      %l : int[] = prim::ListConstruct()
      -> (%l)
  return (%r)
"#;
    let g = parse_graph(text).unwrap();
    let refused = Code::new(&g).err().expect("the constant cannot run");
    let code = lenient(text);
    assert_eq!(code.missing.len(), 1);
    assert!(run(&code, vec![IValue::Bool(false)]).is_ok());
    let err = run(&code, vec![IValue::Bool(true)]).unwrap_err();
    assert_eq!(err.message, refused.message);
    assert_eq!(err.source.unwrap().to_string(), "model.py:2:4");
}

/// Functions of a unit build with the unit's setting; the error names the callee's node and
/// the call stack.
#[test]
fn unit_functions_follow_the_unit() {
    let unit = Arc::new(CompilationUnit::new());
    unit.add_function(Function::new("helper", parse_graph(BRANCH).unwrap()));
    let caller = parse_graph(
        r#"graph(%c : bool):
  %f : Function = prim::Constant[name="helper"]()
  %two : int = prim::Constant[value=2]()
  %r : int = prim::CallFunction(%f, %c, %two) # main.py:1:4
  return (%r)
"#,
    )
    .unwrap();
    let err = Code::with_unit(&caller, &unit).err().unwrap();
    assert!(err.message.starts_with(UNKNOWN), "{}", err.message);

    let unit = Arc::new(CompilationUnit::new());
    unit.set_missing_operators(MissingOperators::RaiseWhenRun);
    unit.add_function(Function::new("helper", parse_graph(BRANCH).unwrap()));
    let code = Code::with_unit(&caller, &unit).unwrap();
    assert!(code.missing.is_empty(), "the callee's node is the callee's");
    let helper = unit.function("helper").unwrap().code(Some(&unit)).unwrap();
    assert_eq!(helper.missing.len(), 1);
    assert_eq!(
        run(&code, vec![IValue::Bool(false)]).unwrap()[0].as_int(),
        Some(3)
    );
    let err = run(&code, vec![IValue::Bool(true)]).unwrap_err();
    assert_eq!(err.message, UNKNOWN);
    assert_eq!(err.call_stack.len(), 2);
    assert_eq!(
        err.call_stack[1].source.as_ref().unwrap().to_string(),
        "model.py:3:8"
    );
    let helper = unit.function("helper").unwrap();
    let err = call_function(
        &helper,
        Some(&unit),
        vec![IValue::Bool(true), IValue::Int(1)],
    )
    .unwrap_err();
    assert_eq!(err.message, UNKNOWN);
}
