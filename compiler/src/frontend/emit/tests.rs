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
