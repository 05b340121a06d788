//! The emitter on small programs: each case's normalized graph (or rendered error), checked
//! with expect-test (`UPDATE_EXPECT=1` refreshes them). The script corpus (test/script) holds
//! the comparisons with PyTorch's own graphs.

use expect_test::{expect, Expect};

use crate::frontend::compile_source;
use crate::frontend::normalize::normalized_text;

fn check(src: &str, expect: Expect) {
    let text = format!("import torch\nfrom typing import List, Optional, Tuple\n{src}");
    let out = match compile_source("t.py", &text) {
        Ok(unit) => {
            let f = unit.functions().last().cloned().expect("a function");
            normalized_text(&f.graph).expect("normalizes")
        }
        Err(e) => e,
    };
    expect.assert_eq(&out);
}

#[test]
fn aug_assign_is_in_place_for_tensors_and_lists() {
    check(
        "def f(x: torch.Tensor, xs: List[int], n: int):\n    x += 1\n    xs += [n]\n    n += 1\n    return x, xs, n\n",
        expect![[r#"
            graph(%0 : Tensor,
                  %1 : int[],
                  %2 : int):
              %3 : int = prim::Constant[value=1]()
              %4 : Tensor = aten::add_(%0, %3, %3)
              %5 : int[] = prim::ListConstruct(%2)
              %6 : int[] = aten::add_(%1, %5)
              %7 : int = aten::add(%2, %3)
              %8 : (Tensor, int[], int) = prim::TupleConstruct(%4, %6, %7)
              return (%8)
        "#]],
    );
}

#[test]
fn optional_refinement_after_early_return() {
    check(
        "def f(x: Optional[int]) -> int:\n    if x is None:\n        return 0\n    return x\n",
        expect![[r#"
            graph(%0 : int?):
              %1 : NoneType = prim::Constant()
              %2 : int = prim::Constant[value=0]()
              %3 : bool = aten::__is__(%0, %1)
              %4 : int = prim::If(%3)
                block0():
                  -> (%2)
                block1():
                  %5 : int = prim::unchecked_cast(%0)
                  -> (%5)
              return (%4)
        "#]],
    );
}

#[test]
fn starred_unpacking_packs_the_rest_into_a_tuple() {
    check(
        "def f(t: Tuple[int, int, int]):\n    a, *b = t\n    return b\n",
        expect![[r#"
            graph(%0 : (int, int, int)):
              %1 : int, %2 : int, %3 : int = prim::TupleUnpack(%0)
              %4 : (int, int) = prim::TupleConstruct(%2, %3)
              return (%4)
        "#]],
    );
}

#[test]
fn undefined_names_are_reported_where_used() {
    check(
        "def f(x: int) -> int:\n    return x + y\n",
        expect![[r#"
            t.py:4:16: error: undefined value y
                return x + y
                           ~ <--- HERE"#]],
    );
}

#[test]
fn variables_defined_in_one_branch_are_errors_when_used() {
    check(
        "def f(c: bool) -> int:\n    if c:\n        y = 1\n    return y\n",
        expect![[r#"
            t.py:6:12: error: y is not defined in the false branch
            and was used here
                return y
                       ~ <--- HERE"#]],
    );
}

#[test]
fn unknown_imports_are_refused() {
    check(
        "import numpy\ndef f(x: int) -> int:\n    return x\n",
        expect![[r#"
            t.py:3:1: error: import of module 'numpy' is not supported in TorchScript: only torch, math and typing can be imported
            import numpy
            ~~~~~~~~~~~~ <--- HERE"#]],
    );
}

/// What an archive loader does: classes of one code file used from another, through a
/// resolver that knows the unit's classes.
#[test]
fn resolver_supplies_classes_of_other_modules() {
    use std::sync::Arc;

    use ember_runtime::unit::CompilationUnit;

    use crate::frontend::{compile, compile_as_module, Resolved, Resolver, SourceFile};

    struct UnitResolver<'u>(&'u CompilationUnit);
    impl Resolver for UnitResolver<'_> {
        fn resolve(&self, name: &str) -> Option<Resolved> {
            self.0.class(name).map(Resolved::Class)
        }
    }

    let unit = CompilationUnit::new();
    let lib = Arc::new(SourceFile::new(
        "m.py",
        "class Lin:\n    def __init__(self, w: int):\n        self.w = w\n\n    def forward(self, x: int) -> int:\n        return x * self.w\n",
    ));
    compile_as_module(lib, &unit, &UnitResolver(&unit), "__torch__.m").expect("lib compiles");
    let main = Arc::new(SourceFile::new(
        "main.py",
        "def f(x: int) -> int:\n    l = __torch__.m.Lin(3)\n    return l.forward(x)\n",
    ));
    compile(main, &unit, &UnitResolver(&unit)).expect("main compiles");
    let f = unit.function("f").expect("f");
    expect![[r#"
        graph(%0 : int):
          %1 : int = prim::Constant[value=3]()
          %2 : __torch__.m.Lin = prim::CreateObject()
          %3 : NoneType = prim::CallMethod[name="__init__"](%2, %1)
          %4 : int = prim::CallMethod[name="forward"](%2, %0)
          return (%4)
    "#]]
    .assert_eq(&normalized_text(&f.graph).unwrap());
}

#[test]
fn list_and_dict_literals_check_elements_against_the_hint_without_casting_them() {
    // PyTorch emits the elements without the annotation's element type: an `Any` list holds
    // them as they are, and a mismatch is reported for the unified element type.
    check(
        "from typing import Any, Dict\ndef f(n: int):\n    xs: List[Any] = [n, 'a']\n    d: Dict[str, Any] = {'k': n}\n    return xs, d\n",
        expect![[r#"
            graph(%0 : int):
              %1 : str = prim::Constant[value="a"]()
              %2 : str = prim::Constant[value="k"]()
              %3 : Any[] = prim::ListConstruct(%0, %1)
              %4 : Dict(str, Any) = prim::DictConstruct(%2, %0)
              %5 : (Any[], Dict(str, Any)) = prim::TupleConstruct(%3, %4)
              return (%5)
        "#]],
    );
    check(
        "def f(x: Optional[int]) -> List[int]:\n    return [x]\n",
        expect![[r#"
            t.py:4:12: error: List type annotation `List[int]` did not match the types of the given list elements, which were unified to Optional[int]
                return [x]
                       ~~~ <--- HERE"#]],
    );
    check(
        "def f(n: int) -> int:\n    xs: List[List[int]] = [[]]\n    return len(xs)\n",
        expect![[r#"
            t.py:4:27: error: List type annotation `List[List[int]]` did not match the types of the given list elements, which were unified to List[Tensor]
                xs: List[List[int]] = [[]]
                                      ~~~~ <--- HERE"#]],
    );
}

#[test]
fn calls_of_unused_free_functions_raise_in_place() {
    // PyTorch never compiles an @torch.jit.unused free function: a call matches the signature
    // its annotations give (no defaults; Tensors and a return by the number of binders when
    // nothing is annotated), raises, and stands for an uninitialized value.
    check(
        "@torch.jit.unused\ndef noann(x, y):\n    return x\n@torch.jit.unused\ndef withdef(x: int, k: int = 3) -> List[int]:\n    return [x]\ndef f(x: torch.Tensor, n: int):\n    if n > 0:\n        a, b = noann(x, x)\n        return a + b\n    if n < -5:\n        noann(x, x)\n    return torch.tensor(withdef(n, 2))\n",
        expect![[r#"
            graph(%0 : Tensor,
                  %1 : int):
              %2 : NoneType = prim::Constant()
              %3 : int = prim::Constant[value=-5]()
              %4 : int = prim::Constant[value=0]()
              %5 : str = prim::Constant[value="This Python function is annotated to be ignored and cannot be run"]()
              %6 : Tensor = prim::Uninitialized()
              %7 : bool = aten::gt(%1, %4)
               = prim::If(%7)
                block0():
                   = prim::RaiseException(%5, %2)
                  -> ()
                block1():
                  -> ()
              %8 : bool = aten::lt(%1, %3)
               = prim::If(%8)
                block0():
                   = prim::RaiseException(%5, %2)
                  -> ()
                block1():
                  -> ()
               = prim::RaiseException(%5, %2)
              return (%6)
        "#]],
    );
    check(
        "@torch.jit.unused\ndef withdef(x: int, k: int = 3) -> List[int]:\n    return [x]\ndef g(n: int):\n    return withdef(n)\n",
        expect![[r#"
            t.py:7:12: error: 
            withdef(int x, int k) -> int[] 0:
            Argument k not provided.

                return withdef(n)
                       ~~~~~~~ <--- HERE"#]],
    );
}
