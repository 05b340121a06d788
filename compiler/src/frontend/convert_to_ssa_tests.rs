//! Each case is a pre-SSA graph as PyTorch's emitter builds it for the Python in its comment;
//! the expected text is the graph right after `ConvertToSSA` + `CanonicalizeModifiedLoops`
//! (before PyTorch's cleanup passes, so dead constants and Uninitialized placeholders remain).
//! After dead code elimination and constant pooling these match `torch.jit.script(f).graph`
//! (see test/Transforms/convert-to-ssa.ir, which runs those passes too).

use expect_test::{expect, Expect};

use ember_dialects::parse::parse_graph;
use ember_dialects::verify::verify;

use super::convert_to_ssa;

fn convert(text: &str) -> Result<String, String> {
    let mut g = parse_graph(text).map_err(|d| d.to_string())?;
    convert_to_ssa(&mut g)?;
    if let Err(errors) = verify(&g) {
        let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!("output does not verify: {messages:?}\n{g}");
    }
    let printed = g.to_string();
    for gone in [
        "prim::Load",
        "prim::Store",
        "BreakStmt",
        "ContinueStmt",
        "ReturnStmt",
        "LoopContinuation",
        "ComprehensionScope",
        "prim::With",
    ] {
        assert!(!printed.contains(gone), "{gone} left in\n{printed}");
    }
    Ok(printed)
}

fn check(text: &str, expected: Expect) {
    match convert(text) {
        Ok(out) => expected.assert_eq(&out),
        Err(e) => panic!("conversion failed: {e}"),
    }
}

fn check_error(text: &str, expected: Expect) {
    match convert(text) {
        Ok(out) => panic!("expected an error, got\n{out}"),
        Err(e) => expected.assert_eq(&e),
    }
}

// def f(c: bool, x: int) -> int:
//     if c:
//         y = x + 1
//     else:
//         y = 2
//     return y
#[test]
fn if_defines_a_variable_in_both_branches() {
    check(
        r#"graph(%c.1 : bool, %x.1 : int):
   = prim::Store[name="c"](%c.1)
   = prim::Store[name="x"](%x.1)
  %c : bool = prim::Load[name="c"]()
   = prim::If(%c)
    block0():
      %x : int = prim::Load[name="x"]()
      %one : int = prim::Constant[value=1]()
      %y.1 : int = aten::add(%x, %one)
       = prim::Store[name="y"](%y.1)
      -> ()
    block1():
      %y.2 : int = prim::Constant[value=2]()
       = prim::Store[name="y"](%y.2)
      -> ()
  %y : int = prim::Load[name="y"]()
   = prim::ReturnStmt(%y)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%c.1 : bool,
                  %x.1 : int):
              %19 : int = prim::Uninitialized()
              %18 : bool = prim::Uninitialized()
              %16 : bool = prim::Constant[value=1]()
              %17 : bool = prim::Constant[value=0]()
              %15 : bool = prim::Uninitialized()
              %13 : bool = prim::Constant[value=1]()
              %14 : bool = prim::Constant[value=0]()
              %12 : bool = prim::Constant[value=0]()
              %y : int = prim::If(%c.1)
                block0():
                  %one : int = prim::Constant[value=1]()
                  %y.1 : int = aten::add(%x.1, %one)
                  -> (%y.1)
                block1():
                  %y.2 : int = prim::Constant[value=2]()
                  -> (%y.2)
              return (%y)
        "#]],
    );
}

// def f(n: int) -> int:
//     x = 0
//     for i in range(n):
//         if i > 3:
//             break
//         x = x + i
//     return x
#[test]
fn for_with_break_becomes_a_while_loop() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %x.1 : int = prim::Constant[value=0]()
   = prim::Store[name="x"](%x.1)
  %n : int = prim::Load[name="n"]()
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n)
    block0(%i.1 : int):
       = prim::Store[name="i"](%i.1)
      %i : int = prim::Load[name="i"]()
      %three : int = prim::Constant[value=3]()
      %gt : bool = aten::gt(%i, %three)
       = prim::If(%gt)
        block0():
           = prim::BreakStmt()
          -> ()
        block1():
          -> ()
      %x : int = prim::Load[name="x"]()
      %i.2 : int = prim::Load[name="i"]()
      %x.2 : int = aten::add(%x, %i.2)
       = prim::Store[name="x"](%x.2)
      -> ()
    block1():
      -> (%true)
  %x.3 : int = prim::Load[name="x"]()
   = prim::ReturnStmt(%x.3)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %36 : int = prim::Uninitialized()
              %35 : bool = prim::Uninitialized()
              %33 : bool = prim::Constant[value=1]()
              %34 : bool = prim::Constant[value=0]()
              %22 : int = prim::Uninitialized()
              %21 : bool = prim::Uninitialized()
              %19 : bool = prim::Constant[value=1]()
              %20 : bool = prim::Constant[value=0]()
              %17 : bool = prim::Constant[value=0]()
              %x.1 : int = prim::Constant[value=0]()
              %true : bool = prim::Constant[value=1]()
              %45 : int = prim::Constant[value=0]()
              %46 : int = prim::Constant[value=1]()
              %47 : bool = aten::gt(%n.1, %45)
              %48 : int = prim::Constant[value=9223372036854775807]()
              %x : int, %49 : int = prim::Loop(%48, %47, %x.1, %45)
                block0(%4 : int, %x.6 : int, %50 : int):
                  %three : int = prim::Constant[value=3]()
                  %gt : bool = aten::gt(%50, %three)
                  %23 : bool, %24 : bool, %25 : int, %38 : bool, %39 : int, %40 : bool, %41 : bool, %42 : int, %43 : bool, %44 : int = prim::If(%gt)
                    block0():
                      -> (%19, %17, %x.6, %21, %22, %19, %17, %x.6, %17, %x.6)
                    block1():
                      %x.2 : int = aten::add(%x.6, %50)
                      -> (%20, %21, %22, %true, %x.2, %20, %21, %22, %true, %x.2)
                  %51 : int = aten::add(%50, %46)
                  %52 : bool = aten::lt(%51, %n.1)
                  %53 : bool = aten::__and__(%52, %43)
                  -> (%53, %44, %51)
              return (%x)
        "#]],
    );
}

// def f(n: int) -> int:
//     i = 0
//     while i < n:
//         i += 1
//         if i == 3:
//             continue
//         i += 2
//     return i
#[test]
fn while_with_continue_reevaluates_the_condition() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %i.1 : int = prim::Constant[value=0]()
   = prim::Store[name="i"](%i.1)
  %max : int = prim::Constant[value=9223372036854775807]()
   = prim::Loop(%max)
    block0(%iter : int):
      %i : int = prim::Load[name="i"]()
      %one : int = prim::Constant[value=1]()
      %i.2 : int = aten::add(%i, %one)
       = prim::Store[name="i"](%i.2)
      %i.3 : int = prim::Load[name="i"]()
      %three : int = prim::Constant[value=3]()
      %eq : bool = aten::eq(%i.3, %three)
       = prim::If(%eq)
        block0():
           = prim::ContinueStmt()
          -> ()
        block1():
          -> ()
      %i.4 : int = prim::Load[name="i"]()
      %two : int = prim::Constant[value=2]()
      %i.5 : int = aten::add(%i.4, %two)
       = prim::Store[name="i"](%i.5)
      -> ()
    block1():
      %i.6 : int = prim::Load[name="i"]()
      %n : int = prim::Load[name="n"]()
      %lt : bool = aten::lt(%i.6, %n)
      -> (%lt)
  %i.7 : int = prim::Load[name="i"]()
   = prim::ReturnStmt(%i.7)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %47 : int = prim::Uninitialized()
              %46 : bool = prim::Uninitialized()
              %44 : bool = prim::Constant[value=1]()
              %45 : bool = prim::Constant[value=0]()
              %33 : int = prim::Uninitialized()
              %32 : bool = prim::Uninitialized()
              %30 : bool = prim::Constant[value=1]()
              %31 : bool = prim::Constant[value=0]()
              %22 : bool = prim::Constant[value=0]()
              %i.1 : int = prim::Constant[value=0]()
              %max : int = prim::Constant[value=9223372036854775807]()
              %lt.1 : bool = aten::lt(%i.1, %n.1)
              %i : int = prim::Loop(%max, %lt.1, %i.1)
                block0(%iter : int, %i.10 : int):
                  %one : int = prim::Constant[value=1]()
                  %i.2 : int = aten::add(%i.10, %one)
                  %three : int = prim::Constant[value=3]()
                  %eq : bool = aten::eq(%i.2, %three)
                  %34 : bool, %35 : bool, %36 : int, %51 : bool, %52 : int, %53 : bool, %54 : bool, %55 : int, %56 : bool, %57 : int = prim::If(%eq)
                    block0():
                      %lt : bool = aten::lt(%i.2, %n.1)
                      -> (%30, %lt, %i.2, %32, %33, %30, %lt, %i.2, %lt, %i.2)
                    block1():
                      %two : int = prim::Constant[value=2]()
                      %i.5 : int = aten::add(%i.2, %two)
                      %lt.3 : bool = aten::lt(%i.5, %n.1)
                      -> (%31, %32, %33, %lt.3, %i.5, %31, %32, %33, %lt.3, %i.5)
                  -> (%56, %57)
              return (%i)
        "#]],
    );
}

// def f(x: int) -> int:
//     if x > 0:
//         return 1
//     return 2
#[test]
fn early_return_merges_into_one_if() {
    check(
        r#"graph(%x.1 : int):
   = prim::Store[name="x"](%x.1)
  %x : int = prim::Load[name="x"]()
  %zero : int = prim::Constant[value=0]()
  %gt : bool = aten::gt(%x, %zero)
   = prim::If(%gt)
    block0():
      %one : int = prim::Constant[value=1]()
       = prim::ReturnStmt(%one)
      -> ()
    block1():
      -> ()
  %two : int = prim::Constant[value=2]()
   = prim::ReturnStmt(%two)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%x.1 : int):
              %14 : int = prim::Uninitialized()
              %13 : bool = prim::Uninitialized()
              %11 : bool = prim::Constant[value=1]()
              %12 : bool = prim::Constant[value=0]()
              %10 : bool = prim::Uninitialized()
              %8 : bool = prim::Constant[value=1]()
              %9 : bool = prim::Constant[value=0]()
              %7 : bool = prim::Constant[value=0]()
              %zero : int = prim::Constant[value=0]()
              %gt : bool = aten::gt(%x.1, %zero)
              %15 : bool, %16 : int, %20 : int, %21 : int = prim::If(%gt)
                block0():
                  %one : int = prim::Constant[value=1]()
                  -> (%11, %one, %14, %one)
                block1():
                  %two : int = prim::Constant[value=2]()
                  -> (%12, %14, %14, %two)
              return (%21)
        "#]],
    );
}

// def f(x: int) -> int:
//     if x > 0:
//         y = 1
//     else:
//         raise RuntimeError("bad")
//     return y
#[test]
fn a_branch_that_raises_does_not_guard_the_rest() {
    check(
        r#"graph(%x.1 : int):
   = prim::Store[name="x"](%x.1)
  %x : int = prim::Load[name="x"]()
  %zero : int = prim::Constant[value=0]()
  %gt : bool = aten::gt(%x, %zero)
   = prim::If(%gt)
    block0():
      %y.1 : int = prim::Constant[value=1]()
       = prim::Store[name="y"](%y.1)
      -> ()
    block1():
      %msg : str = prim::Constant[value="bad"]()
      %cls : str = prim::Constant[value="builtins.RuntimeError"]()
       = prim::RaiseException(%msg, %cls)
      %u : int = prim::Uninitialized()
       = prim::Store[name="y"](%u)
      -> ()
  %y : int = prim::Load[name="y"]()
   = prim::ReturnStmt(%y)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%x.1 : int):
              %21 : int = prim::Uninitialized()
              %20 : bool = prim::Uninitialized()
              %18 : bool = prim::Constant[value=1]()
              %19 : bool = prim::Constant[value=0]()
              %17 : int = prim::Uninitialized()
              %16 : bool = prim::Uninitialized()
              %14 : bool = prim::Constant[value=1]()
              %15 : bool = prim::Constant[value=0]()
              %13 : bool = prim::Constant[value=0]()
              %zero : int = prim::Constant[value=0]()
              %gt : bool = aten::gt(%x.1, %zero)
              %y : int = prim::If(%gt)
                block0():
                  %y.1 : int = prim::Constant[value=1]()
                  -> (%y.1)
                block1():
                  %msg : str = prim::Constant[value="bad"]()
                  %cls : str = prim::Constant[value="builtins.RuntimeError"]()
                   = prim::RaiseException(%msg, %cls)
                  -> (%17)
              return (%y)
        "#]],
    );
}

// def f(n: int) -> int:
//     for i in range(n):
//         if i == 4:
//             return i
//     return -1
#[test]
fn return_inside_a_loop_carries_a_flag_out() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %n : int = prim::Load[name="n"]()
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n)
    block0(%i.1 : int):
       = prim::Store[name="i"](%i.1)
      %i : int = prim::Load[name="i"]()
      %four : int = prim::Constant[value=4]()
      %eq : bool = aten::eq(%i, %four)
       = prim::If(%eq)
        block0():
          %i.2 : int = prim::Load[name="i"]()
           = prim::ReturnStmt(%i.2)
          -> ()
        block1():
          -> ()
      -> ()
    block1():
      -> (%true)
  %m : int = prim::Constant[value=-1]()
   = prim::ReturnStmt(%m)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %17 : int = prim::Uninitialized()
              %16 : bool = prim::Uninitialized()
              %14 : bool = prim::Constant[value=1]()
              %15 : bool = prim::Constant[value=0]()
              %13 : bool = prim::Uninitialized()
              %11 : bool = prim::Constant[value=1]()
              %12 : bool = prim::Constant[value=0]()
              %10 : bool = prim::Constant[value=0]()
              %true : bool = prim::Constant[value=1]()
              %28 : int = prim::Constant[value=0]()
              %29 : int = prim::Constant[value=1]()
              %30 : bool = aten::gt(%n.1, %28)
              %31 : int = prim::Constant[value=9223372036854775807]()
              %22 : bool, %23 : int, %32 : int = prim::Loop(%31, %30, %15, %17, %28)
                block0(%3 : int, %21 : bool, %24 : int, %33 : int):
                  %four : int = prim::Constant[value=4]()
                  %eq : bool = aten::eq(%33, %four)
                  %18 : bool, %19 : int, %27 : bool = prim::If(%eq)
                    block0():
                      -> (%14, %33, %15)
                    block1():
                      -> (%15, %17, %true)
                  %34 : int = aten::add(%33, %29)
                  %35 : bool = aten::lt(%34, %n.1)
                  %36 : bool = aten::__and__(%35, %27)
                  -> (%36, %18, %19, %34)
              %25 : int, %26 : int = prim::If(%22)
                block0():
                  -> (%17, %23)
                block1():
                  %m : int = prim::Constant[value=-1]()
                  -> (%17, %m)
              return (%26)
        "#]],
    );
}

// def f(n: int) -> int:
//     t = 0
//     for i in range(n):
//         j = 0
//         while j < i:
//             if j == 2:
//                 break
//             t += j
//             j += 1
//     return t
#[test]
fn break_leaves_only_the_inner_loop() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %t.1 : int = prim::Constant[value=0]()
   = prim::Store[name="t"](%t.1)
  %n : int = prim::Load[name="n"]()
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n)
    block0(%i.1 : int):
       = prim::Store[name="i"](%i.1)
      %j.1 : int = prim::Constant[value=0]()
       = prim::Store[name="j"](%j.1)
      %max : int = prim::Constant[value=9223372036854775807]()
       = prim::Loop(%max)
        block0(%iter : int):
          %j : int = prim::Load[name="j"]()
          %two : int = prim::Constant[value=2]()
          %eq : bool = aten::eq(%j, %two)
           = prim::If(%eq)
            block0():
               = prim::BreakStmt()
              -> ()
            block1():
              -> ()
          %t : int = prim::Load[name="t"]()
          %j.2 : int = prim::Load[name="j"]()
          %t.2 : int = aten::add(%t, %j.2)
           = prim::Store[name="t"](%t.2)
          %j.3 : int = prim::Load[name="j"]()
          %one : int = prim::Constant[value=1]()
          %j.4 : int = aten::add(%j.3, %one)
           = prim::Store[name="j"](%j.4)
          -> ()
        block1():
          %j.5 : int = prim::Load[name="j"]()
          %i : int = prim::Load[name="i"]()
          %lt : bool = aten::lt(%j.5, %i)
          -> (%lt)
      -> ()
    block1():
      -> (%true)
  %t.3 : int = prim::Load[name="t"]()
   = prim::ReturnStmt(%t.3)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %61 : int = prim::Uninitialized()
              %60 : bool = prim::Uninitialized()
              %58 : bool = prim::Constant[value=1]()
              %59 : bool = prim::Constant[value=0]()
              %43 : int = prim::Uninitialized()
              %42 : bool = prim::Uninitialized()
              %40 : bool = prim::Constant[value=1]()
              %41 : bool = prim::Constant[value=0]()
              %34 : bool = prim::Constant[value=0]()
              %t.1 : int = prim::Constant[value=0]()
              %true : bool = prim::Constant[value=1]()
              %t : int = prim::Loop(%n.1, %true, %t.1)
                block0(%i.1 : int, %t.10 : int):
                  %j.1 : int = prim::Constant[value=0]()
                  %max : int = prim::Constant[value=9223372036854775807]()
                  %lt : bool = aten::lt(%j.1, %i.1)
                  %j : int, %t.8 : int = prim::Loop(%max, %lt, %j.1, %t.10)
                    block0(%iter : int, %j.8 : int, %t.6 : int):
                      %two : int = prim::Constant[value=2]()
                      %eq : bool = aten::eq(%j.8, %two)
                      %44 : bool, %45 : bool, %46 : int, %47 : int, %66 : bool, %67 : int, %68 : int, %69 : bool, %70 : bool, %71 : int, %72 : int, %73 : bool, %74 : int, %75 : int = prim::If(%eq)
                        block0():
                          -> (%40, %34, %j.8, %t.6, %42, %43, %43, %40, %34, %j.8, %t.6, %34, %j.8, %t.6)
                        block1():
                          %t.2 : int = aten::add(%t.6, %j.8)
                          %one : int = prim::Constant[value=1]()
                          %j.4 : int = aten::add(%j.8, %one)
                          %lt.1 : bool = aten::lt(%j.4, %i.1)
                          -> (%41, %42, %43, %43, %lt.1, %j.4, %t.2, %41, %42, %43, %43, %lt.1, %j.4, %t.2)
                      -> (%73, %74, %75)
                  -> (%true, %t.8)
              return (%t)
        "#]],
    );
}

// def f(xs: List[int]) -> int:
//     return sum([x * 2 for x in xs]) -- the comprehension's variables stay in its scope.
#[test]
fn comprehension_scope_is_inlined_and_its_stores_stay_local() {
    check(
        r#"graph(%xs.1 : int[]):
   = prim::Store[name="xs"](%xs.1)
  %xs : int[] = prim::Load[name="xs"]()
  %out : int[] = prim::ListConstruct()
   = prim::ComprehensionScope()
    block0():
      %len : int = aten::len(%xs)
      %true : bool = prim::Constant[value=1]()
       = prim::Loop(%len)
        block0(%k : int):
          %x.1 : int = aten::__getitem__(%xs, %k)
           = prim::Store[name="x"](%x.1)
          %x : int = prim::Load[name="x"]()
          %two : int = prim::Constant[value=2]()
          %m : int = aten::mul(%x, %two)
          %l : int[] = aten::append(%out, %m)
          -> ()
        block1():
          -> (%true)
      -> ()
  %s : int = aten::sum(%out)
   = prim::ReturnStmt(%s)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%xs.1 : int[]):
              %20 : int = prim::Uninitialized()
              %19 : bool = prim::Uninitialized()
              %17 : bool = prim::Constant[value=1]()
              %18 : bool = prim::Constant[value=0]()
              %16 : bool = prim::Uninitialized()
              %14 : bool = prim::Constant[value=1]()
              %15 : bool = prim::Constant[value=0]()
              %13 : bool = prim::Constant[value=0]()
              %out : int[] = prim::ListConstruct()
              %len : int = aten::len(%xs.1)
              %true : bool = prim::Constant[value=1]()
               = prim::Loop(%len, %true)
                block0(%k : int):
                  %x.1 : int = aten::__getitem__(%xs.1, %k)
                  %two : int = prim::Constant[value=2]()
                  %m : int = aten::mul(%x.1, %two)
                  %l : int[] = aten::append(%out, %m)
                  -> (%true)
              %s : int = aten::sum(%out)
              return (%s)
        "#]],
    );
}

// def f(x: int) -> int:
//     if x > 0:
//         return 1
//     else:
//         return 2
#[test]
fn return_in_both_branches() {
    check(
        r#"graph(%x.1 : int):
   = prim::Store[name="x"](%x.1)
  %x : int = prim::Load[name="x"]()
  %zero : int = prim::Constant[value=0]()
  %gt : bool = aten::gt(%x, %zero)
   = prim::If(%gt)
    block0():
      %one : int = prim::Constant[value=1]()
       = prim::ReturnStmt(%one)
      -> ()
    block1():
      %two : int = prim::Constant[value=2]()
       = prim::ReturnStmt(%two)
      -> ()
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%x.1 : int):
              %15 : int = prim::Uninitialized()
              %13 : bool = prim::Uninitialized()
              %11 : bool = prim::Constant[value=1]()
              %12 : bool = prim::Constant[value=0]()
              %10 : bool = prim::Uninitialized()
              %8 : bool = prim::Constant[value=1]()
              %9 : bool = prim::Constant[value=0]()
              %7 : bool = prim::Constant[value=0]()
              %zero : int = prim::Constant[value=0]()
              %gt : bool = aten::gt(%x.1, %zero)
              %14 : int = prim::If(%gt)
                block0():
                  %one : int = prim::Constant[value=1]()
                  -> (%one)
                block1():
                  %two : int = prim::Constant[value=2]()
                  -> (%two)
              return (%14)
        "#]],
    );
}

// def f(x: int) -> int:
//     if x > 0:
//         return 1
//     y = x * 2
//     return y
#[test]
fn code_after_an_early_return_moves_into_the_else_branch() {
    check(
        r#"graph(%x.1 : int):
   = prim::Store[name="x"](%x.1)
  %x : int = prim::Load[name="x"]()
  %zero : int = prim::Constant[value=0]()
  %gt : bool = aten::gt(%x, %zero)
   = prim::If(%gt)
    block0():
      %one : int = prim::Constant[value=1]()
       = prim::ReturnStmt(%one)
      -> ()
    block1():
      -> ()
  %x.2 : int = prim::Load[name="x"]()
  %two : int = prim::Constant[value=2]()
  %y.1 : int = aten::mul(%x.2, %two)
   = prim::Store[name="y"](%y.1)
  %y : int = prim::Load[name="y"]()
   = prim::ReturnStmt(%y)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%x.1 : int):
              %17 : int = prim::Uninitialized()
              %16 : bool = prim::Uninitialized()
              %14 : bool = prim::Constant[value=1]()
              %15 : bool = prim::Constant[value=0]()
              %13 : bool = prim::Uninitialized()
              %11 : bool = prim::Constant[value=1]()
              %12 : bool = prim::Constant[value=0]()
              %10 : bool = prim::Constant[value=0]()
              %zero : int = prim::Constant[value=0]()
              %gt : bool = aten::gt(%x.1, %zero)
              %18 : bool, %19 : int, %24 : int, %25 : int = prim::If(%gt)
                block0():
                  %one : int = prim::Constant[value=1]()
                  -> (%14, %one, %17, %one)
                block1():
                  %two : int = prim::Constant[value=2]()
                  %y.1 : int = aten::mul(%x.1, %two)
                  -> (%15, %17, %17, %y.1)
              return (%25)
        "#]],
    );
}

// def f(n: int) -> int:
//     s = 0
//     for i in range(n):
//         if i == 2:
//             continue
//         s += i
//     return s
#[test]
fn continue_in_a_for_loop() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %s.1 : int = prim::Constant[value=0]()
   = prim::Store[name="s"](%s.1)
  %n : int = prim::Load[name="n"]()
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n)
    block0(%i.1 : int):
       = prim::Store[name="i"](%i.1)
      %i : int = prim::Load[name="i"]()
      %two : int = prim::Constant[value=2]()
      %eq : bool = aten::eq(%i, %two)
       = prim::If(%eq)
        block0():
           = prim::ContinueStmt()
          -> ()
        block1():
          -> ()
      %s : int = prim::Load[name="s"]()
      %i.2 : int = prim::Load[name="i"]()
      %s.2 : int = aten::add(%s, %i.2)
       = prim::Store[name="s"](%s.2)
      -> ()
    block1():
      -> (%true)
  %s.3 : int = prim::Load[name="s"]()
   = prim::ReturnStmt(%s.3)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %36 : int = prim::Uninitialized()
              %35 : bool = prim::Uninitialized()
              %33 : bool = prim::Constant[value=1]()
              %34 : bool = prim::Constant[value=0]()
              %22 : int = prim::Uninitialized()
              %21 : bool = prim::Uninitialized()
              %19 : bool = prim::Constant[value=1]()
              %20 : bool = prim::Constant[value=0]()
              %17 : bool = prim::Constant[value=0]()
              %s.1 : int = prim::Constant[value=0]()
              %true : bool = prim::Constant[value=1]()
              %45 : int = prim::Constant[value=0]()
              %46 : int = prim::Constant[value=1]()
              %47 : bool = aten::gt(%n.1, %45)
              %48 : int = prim::Constant[value=9223372036854775807]()
              %s : int, %49 : int = prim::Loop(%48, %47, %s.1, %45)
                block0(%4 : int, %s.6 : int, %50 : int):
                  %two : int = prim::Constant[value=2]()
                  %eq : bool = aten::eq(%50, %two)
                  %23 : bool, %24 : bool, %25 : int, %38 : bool, %39 : int, %40 : bool, %41 : bool, %42 : int, %43 : bool, %44 : int = prim::If(%eq)
                    block0():
                      -> (%19, %true, %s.6, %21, %22, %19, %true, %s.6, %true, %s.6)
                    block1():
                      %s.2 : int = aten::add(%s.6, %50)
                      -> (%20, %21, %22, %true, %s.2, %20, %21, %22, %true, %s.2)
                  %51 : int = aten::add(%50, %46)
                  %52 : bool = aten::lt(%51, %n.1)
                  %53 : bool = aten::__and__(%52, %43)
                  -> (%53, %44, %51)
              return (%s)
        "#]],
    );
}

// def f(n: int) -> int:
//     i = 0
//     while True:
//         i += 1
//         if i > n:
//             break
//     return i
#[test]
fn while_true_with_break() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %i.1 : int = prim::Constant[value=0]()
   = prim::Store[name="i"](%i.1)
  %max : int = prim::Constant[value=9223372036854775807]()
   = prim::Loop(%max)
    block0(%iter : int):
      %i : int = prim::Load[name="i"]()
      %one : int = prim::Constant[value=1]()
      %i.2 : int = aten::add(%i, %one)
       = prim::Store[name="i"](%i.2)
      %i.3 : int = prim::Load[name="i"]()
      %n : int = prim::Load[name="n"]()
      %gt : bool = aten::gt(%i.3, %n)
       = prim::If(%gt)
        block0():
           = prim::BreakStmt()
          -> ()
        block1():
          -> ()
      -> ()
    block1():
      %true : bool = prim::Constant[value=1]()
      -> (%true)
  %i.4 : int = prim::Load[name="i"]()
   = prim::ReturnStmt(%i.4)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %37 : int = prim::Uninitialized()
              %36 : bool = prim::Uninitialized()
              %34 : bool = prim::Constant[value=1]()
              %35 : bool = prim::Constant[value=0]()
              %23 : int = prim::Uninitialized()
              %22 : bool = prim::Uninitialized()
              %20 : bool = prim::Constant[value=1]()
              %21 : bool = prim::Constant[value=0]()
              %17 : bool = prim::Constant[value=0]()
              %i.1 : int = prim::Constant[value=0]()
              %max : int = prim::Constant[value=9223372036854775807]()
              %true : bool = prim::Constant[value=1]()
              %i : int = prim::Loop(%max, %true, %i.1)
                block0(%iter : int, %i.7 : int):
                  %one : int = prim::Constant[value=1]()
                  %i.2 : int = aten::add(%i.7, %one)
                  %gt : bool = aten::gt(%i.2, %n.1)
                  %24 : bool, %25 : bool, %26 : int, %39 : bool, %40 : int, %41 : bool, %42 : bool, %43 : int, %44 : bool, %45 : int = prim::If(%gt)
                    block0():
                      -> (%20, %17, %i.2, %22, %23, %20, %17, %i.2, %17, %i.2)
                    block1():
                      %true.1 : bool = prim::Constant[value=1]()
                      -> (%21, %22, %23, %true.1, %i.2, %21, %22, %23, %true.1, %i.2)
                  -> (%44, %45)
              return (%i)
        "#]],
    );
}

// def f(n: int) -> int:
//     for i in range(n):
//         for j in range(n):
//             if i * j == 6:
//                 return i + j
//     return 0
#[test]
fn return_from_nested_loops_leaves_both() {
    check(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %n : int = prim::Load[name="n"]()
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n)
    block0(%i.1 : int):
       = prim::Store[name="i"](%i.1)
      %n.2 : int = prim::Load[name="n"]()
      %true.2 : bool = prim::Constant[value=1]()
       = prim::Loop(%n.2)
        block0(%j.1 : int):
           = prim::Store[name="j"](%j.1)
          %i : int = prim::Load[name="i"]()
          %j : int = prim::Load[name="j"]()
          %mul : int = aten::mul(%i, %j)
          %six : int = prim::Constant[value=6]()
          %eq : bool = aten::eq(%mul, %six)
           = prim::If(%eq)
            block0():
              %i.2 : int = prim::Load[name="i"]()
              %j.2 : int = prim::Load[name="j"]()
              %sum : int = aten::add(%i.2, %j.2)
               = prim::ReturnStmt(%sum)
              -> ()
            block1():
              -> ()
          -> ()
        block1():
          -> (%true.2)
      -> ()
    block1():
      -> (%true)
  %zero : int = prim::Constant[value=0]()
   = prim::ReturnStmt(%zero)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%n.1 : int):
              %24 : int = prim::Uninitialized()
              %23 : bool = prim::Uninitialized()
              %21 : bool = prim::Constant[value=1]()
              %22 : bool = prim::Constant[value=0]()
              %20 : bool = prim::Uninitialized()
              %18 : bool = prim::Constant[value=1]()
              %19 : bool = prim::Constant[value=0]()
              %17 : bool = prim::Constant[value=0]()
              %true : bool = prim::Constant[value=1]()
              %49 : int = prim::Constant[value=0]()
              %50 : int = prim::Constant[value=1]()
              %51 : bool = aten::gt(%n.1, %49)
              %52 : int = prim::Constant[value=9223372036854775807]()
              %34 : bool, %35 : int, %53 : int = prim::Loop(%52, %51, %22, %24, %49)
                block0(%3 : int, %33 : bool, %36 : int, %54 : int):
                  %true.2 : bool = prim::Constant[value=1]()
                  %40 : int = prim::Constant[value=0]()
                  %41 : int = prim::Constant[value=1]()
                  %42 : bool = aten::gt(%n.1, %40)
                  %43 : int = prim::Constant[value=9223372036854775807]()
                  %29 : bool, %30 : int, %44 : int = prim::Loop(%43, %42, %22, %24, %40)
                    block0(%6 : int, %28 : bool, %31 : int, %45 : int):
                      %mul : int = aten::mul(%54, %45)
                      %six : int = prim::Constant[value=6]()
                      %eq : bool = aten::eq(%mul, %six)
                      %25 : bool, %26 : int, %39 : bool = prim::If(%eq)
                        block0():
                          %sum : int = aten::add(%54, %45)
                          -> (%21, %sum, %22)
                        block1():
                          -> (%22, %24, %true.2)
                      %46 : int = aten::add(%45, %41)
                      %47 : bool = aten::lt(%46, %n.1)
                      %48 : bool = aten::__and__(%47, %39)
                      -> (%48, %25, %26, %46)
                  %32 : bool = prim::If(%29)
                    block0():
                      -> (%22)
                    block1():
                      -> (%true)
                  %55 : int = aten::add(%54, %50)
                  %56 : bool = aten::lt(%55, %n.1)
                  %57 : bool = aten::__and__(%56, %32)
                  -> (%57, %29, %30, %55)
              %37 : int, %38 : int = prim::If(%34)
                block0():
                  -> (%24, %35)
                block1():
                  %zero : int = prim::Constant[value=0]()
                  -> (%24, %zero)
              return (%38)
        "#]],
    );
}

// class Ctx: ... (__enter__ returns self)
// def f(c: Ctx, x: int) -> int:
//     with c:
//         x = x + 1
//     return x
#[test]
fn with_statement_stays_flat() {
    check(
        r#"graph(%c.1 : __torch__.Ctx, %x.1 : int):
   = prim::Store[name="c"](%c.1)
   = prim::Store[name="x"](%x.1)
  %c : __torch__.Ctx = prim::Load[name="c"]()
  %e : __torch__.Ctx = prim::Enter(%c)
  %x : int = prim::Load[name="x"]()
  %one : int = prim::Constant[value=1]()
  %x.2 : int = aten::add(%x, %one)
   = prim::Store[name="x"](%x.2)
  %none : NoneType = prim::Exit(%c)
  %x.3 : int = prim::Load[name="x"]()
   = prim::ReturnStmt(%x.3)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%c.1 : __torch__.Ctx,
                  %x.1 : int):
              %17 : int = prim::Uninitialized()
              %16 : bool = prim::Uninitialized()
              %14 : bool = prim::Constant[value=1]()
              %15 : bool = prim::Constant[value=0]()
              %13 : bool = prim::Uninitialized()
              %11 : bool = prim::Constant[value=1]()
              %12 : bool = prim::Constant[value=0]()
              %10 : bool = prim::Constant[value=0]()
              %e : __torch__.Ctx = prim::Enter(%c.1)
              %one : int = prim::Constant[value=1]()
              %x.2 : int = aten::add(%x.1, %one)
              %none : NoneType = prim::Exit(%c.1)
              return (%x.2)
        "#]],
    );
}

// A closure's returns and loops are its own: a return inside it ends the closure, not the
// function (PyTorch's emitClosure: one block with its own placeholder output).
#[test]
fn returns_inside_a_closure_stay_in_it() {
    check(
        r#"graph(%x.1 : int):
   = prim::Store[name="x"](%x.1)
  %f : NoneType = prim::Closure()
    block0(%y.1 : int):
       = prim::Store[name="y"](%y.1)
      %y : int = prim::Load[name="y"]()
      %zero : int = prim::Constant[value=0]()
      %gt : bool = aten::gt(%y, %zero)
       = prim::If(%gt)
        block0():
          %y.2 : int = prim::Load[name="y"]()
           = prim::ReturnStmt(%y.2)
          -> ()
        block1():
          -> ()
      %x : int = prim::Load[name="x"]()
       = prim::ReturnStmt(%x)
      %cret : int = prim::Uninitialized()
      -> (%cret)
  %x.2 : int = prim::Load[name="x"]()
   = prim::ReturnStmt(%x.2)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![[r#"
            graph(%x.1 : int):
              %19 : int = prim::Uninitialized()
              %18 : bool = prim::Uninitialized()
              %16 : bool = prim::Constant[value=1]()
              %17 : bool = prim::Constant[value=0]()
              %15 : bool = prim::Uninitialized()
              %13 : bool = prim::Constant[value=1]()
              %14 : bool = prim::Constant[value=0]()
              %11 : bool = prim::Constant[value=0]()
              %f : NoneType = prim::Closure()
                block0(%y.1 : int):
                  %12 : bool = prim::Constant[value=0]()
                  %zero : int = prim::Constant[value=0]()
                  %gt : bool = aten::gt(%y.1, %zero)
                  %20 : bool, %21 : int, %24 : int, %25 : int = prim::If(%gt)
                    block0():
                      -> (%16, %y.1, %19, %y.1)
                    block1():
                      -> (%17, %19, %19, %x.1)
                  -> (%25)
              return (%x.1)
        "#]],
    );
}

// def f(c: bool) -> int:
//     if c:
//         y = 1
//     return y
#[test]
fn a_variable_defined_in_one_branch_is_an_error_when_used() {
    check_error(
        r#"graph(%c.1 : bool):
   = prim::Store[name="c"](%c.1)
  %c : bool = prim::Load[name="c"]()
   = prim::If(%c)
    block0():
      %y.1 : int = prim::Constant[value=1]()
       = prim::Store[name="y"](%y.1)
      -> ()
    block1():
      -> ()
  %y : int = prim::Load[name="y"]()
   = prim::ReturnStmt(%y)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect!["y is not defined in the false branch"],
    );
}

// def f(n: int):
//     x = 1
//     for i in range(n):
//         x = "a"
//     return x
#[test]
fn a_loop_changing_a_variable_type_is_an_error() {
    check_error(
        r#"graph(%n.1 : int):
   = prim::Store[name="n"](%n.1)
  %x.1 : int = prim::Constant[value=1]()
   = prim::Store[name="x"](%x.1)
  %n : int = prim::Load[name="n"]()
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n)
    block0(%i.1 : int):
      %a : str = prim::Constant[value="a"]()
       = prim::Store[name="x"](%a)
      -> ()
    block1():
      -> (%true)
  %x : int = prim::Load[name="x"]()
   = prim::ReturnStmt(%x)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect![
            "Variable 'x' previously had type int but is now being assigned to a value of type str"
        ],
    );
}

#[test]
fn reading_an_unknown_variable_is_an_error() {
    check_error(
        r#"graph():
  %z : int = prim::Load[name="z"]()
   = prim::ReturnStmt(%z)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect!["undefined value z"],
    );
}

#[test]
fn break_outside_a_loop_is_an_error() {
    check_error(
        r#"graph():
   = prim::BreakStmt()
  %none : NoneType = prim::Constant()
   = prim::ReturnStmt(%none)
  %ret : NoneType = prim::Uninitialized()
  return (%ret)
"#,
        expect!["SyntaxError: 'break' outside loop"],
    );
}

#[test]
fn a_loop_already_in_ssa_form_is_an_error() {
    check_error(
        r#"graph(%n : int):
  %true : bool = prim::Constant[value=1]()
   = prim::Loop(%n, %true)
    block0(%i : int):
      -> (%true)
  %none : NoneType = prim::Constant()
   = prim::ReturnStmt(%none)
  %ret : NoneType = prim::Uninitialized()
  return (%ret)
"#,
        expect!["prim::Loop must have 2 block(s) here, found 1"],
    );
}

#[test]
fn a_store_without_a_name_is_an_error() {
    check_error(
        r#"graph(%x : int):
   = prim::Store(%x)
   = prim::ReturnStmt(%x)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect!["prim::Store has no string attribute 'name'"],
    );
}

#[test]
fn a_return_with_the_wrong_number_of_values_is_an_error() {
    check_error(
        r#"graph(%x : int):
   = prim::ReturnStmt(%x, %x)
  %ret : int = prim::Uninitialized()
  return (%ret)
"#,
        expect!["prim::ReturnStmt carries 2 value(s) but its target block returns 1"],
    );
}
