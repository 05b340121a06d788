# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s "[1, 2]" | FileCheck %s --check-prefix=OUT
# RUN: ember-run %s --entry with_stmt 4 | FileCheck %s --check-prefix=WITH
# RUN: not ember-run %s --entry raise_assert 11 2>&1 | FileCheck %s --check-prefix=RAISE
# RUN: not ember-run %s --entry raise_assert -- -1 2>&1 | FileCheck %s --check-prefix=ASSERT
# RUN: ember-run %s --entry formatting 3 2.5 | FileCheck %s --check-prefix=FMT
# RUN: ember-run %s --entry unpack "(4, 5, 6)" | FileCheck %s --check-prefix=UNPACK
# with, raise/assert, tuple and starred unpacking, augmented assignment (in place on tensors
# and lists), Optional refinement (is None, isinstance, across an early return), string
# formatting and comprehensions.
# OUT: [2, 3, 1, 4]
# WITH: 5
# RAISE: ValueError: too big
# ASSERT: AssertionError: negative
# FMT: 3 and 2.53!3
# UNPACK: 24
import torch
from typing import Any, List, Optional, Tuple


class Guard:
    def __init__(self):
        self.count = 0

    def __enter__(self) -> int:
        self.count += 1
        return self.count

    def __exit__(self, a: Any, b: Any, c: Any) -> None:
        self.count -= 1


# CHECK-LABEL: # with_stmt
# CHECK: %g.1 : __torch__.Guard = prim::CreateObject()
# CHECK: %n.1 : int = prim::Enter(%g.1)
# CHECK: aten::add(%x.1, %n.1)
# CHECK: prim::Exit(%g.1)
def with_stmt(x: int) -> int:
    g = Guard()
    with g as n:
        x = x + n
    return x


# CHECK-LABEL: # raise_assert
# CHECK: aten::ge(%x.1,
# CHECK: prim::If
# CHECK: prim::RaiseException
# CHECK: aten::gt(%x.1,
# CHECK: prim::RaiseException
def raise_assert(x: int) -> int:
    assert x >= 0, "negative"
    if x > 10:
        raise ValueError("too big")
    return x


# CHECK-LABEL: # unpack
# CHECK: %x.1 : int, %y.1 : int, %z.1 : int = prim::TupleUnpack(%t.1)
# CHECK: prim::ListConstruct
def unpack(t: Tuple[int, int, int]) -> int:
    a, *rest = (1, 2, 3)
    b, (c, d) = 1, (2, 3)
    x, y, z = t
    return a + len(rest) + b + c + d + x + y + z


# `+=` on a tensor or a list mutates it in place, as Python does.
# CHECK-LABEL: # augmented
# CHECK: aten::add_(%x.1,
# CHECK: aten::add_(%xs.1,
# CHECK: aten::mul_(
def augmented(x: torch.Tensor, xs: List[int]) -> Tuple[torch.Tensor, List[int]]:
    x += 1
    xs += [4]
    x *= 2
    return x, xs


# CHECK-LABEL: # refine
# CHECK: aten::__is__(%x.1,
# CHECK: prim::If
# CHECK: %x.7 : int = prim::unchecked_cast(%x.1)
# CHECK: prim::isinstance[types=[Tensor]](%y.1)
def refine(x: Optional[int], y: Optional[torch.Tensor]) -> int:
    if x is None:
        return 0
    if isinstance(y, torch.Tensor):
        return x + 1
    return x


# After `if x is None: raise`, x is an int for the rest of the function.
# CHECK-LABEL: # early_return
# CHECK: %x : int = prim::If
# CHECK: prim::RaiseException
# CHECK: prim::unchecked_cast(%x.1)
# CHECK: aten::mul(%x,
def early_return(x: Optional[int]) -> int:
    if x is None:
        raise RuntimeError("none")
    return x * 2


# CHECK-LABEL: # formatting
# CHECK: aten::format(%{{.*}}, %n.1, %f.1)
# CHECK: aten::format(
# CHECK: aten::percentFormat(
def formatting(n: int, f: float) -> str:
    return "{} and {}".format(n, f) + f"{n}!" + "%d" % n


# CHECK-LABEL: # comprehensions
# CHECK: prim::DictConstruct()
# CHECK: prim::Loop
# CHECK: aten::_set_item
# CHECK: prim::Loop
# CHECK: aten::append
def comprehensions(xs: List[int]) -> List[int]:
    d = {x: x * x for x in xs}
    return [v + 1 for v in xs] + [d[k] for k in d]
