# RUN: ember-opt %s --dce | FileCheck %s
# Control flow: variables assigned in branches and loops become If and Loop outputs after SSA
# conversion; early returns, break and continue go through the exit transform.
import torch
from typing import Dict, List, Optional


# CHECK-LABEL: # if_else
# CHECK: %[[Y:.*]] : int = prim::If(
# CHECK: block0():
# CHECK: aten::add
# CHECK: block1():
# CHECK: aten::sub
# CHECK: return (%[[Y]])
def if_else(x: int) -> int:
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


# CHECK-LABEL: # while_loop
# CHECK: %[[T:.*]] : int, %{{.*}} : int = prim::Loop(
# CHECK: aten::lt
# CHECK: return (%[[T]])
def while_loop(n: int) -> int:
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total


# `for` over a range uses the loop counter; over a list, `aten::__getitem__`; over a dict,
# its keys; `enumerate` and `zip` iterate in lockstep up to the shortest length.
# CHECK-LABEL: # for_loops
# CHECK: prim::Loop(%n.1,
# CHECK: aten::len(%xs.1)
# CHECK: aten::__getitem__(%xs.1,
# CHECK: aten::keys(%d.1)
# CHECK: prim::min
def for_loops(n: int, xs: List[int], d: Dict[str, int]) -> int:
    s = 0
    for i in range(n):
        s += i
    for x in xs:
        s += x
    for k in d:
        s += d[k]
    for i, x in enumerate(xs):
        s += i * x
    for a, b in zip(xs, xs):
        s += a - b
    return s


# Iterating a tuple unrolls the loop.
# CHECK-LABEL: # unrolled
# CHECK-NOT: prim::Loop
# CHECK: return
def unrolled(a: int, b: float) -> float:
    s = 0.0
    for v in (a, b):
        s += v
    return s


# A `for` with a `break` becomes a while-style loop counting its own iterations.
# CHECK-LABEL: # break_loop
# CHECK: prim::Loop(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
# CHECK: aten::__and__
def break_loop(n: int) -> int:
    r = 0
    for i in range(n):
        if i > 3:
            break
        r += i
    return r


# An early return inside a loop.
# CHECK-LABEL: # early_return
# CHECK: prim::Loop
# CHECK: prim::If
def early_return(xs: List[int]) -> int:
    for x in xs:
        if x < 0:
            return x
    return 0


# `is None` refines an Optional in the branch where it cannot be None, and after an early
# return.
# CHECK-LABEL: # refine
# CHECK: aten::__is__(%x.1,
# CHECK: prim::unchecked_cast(%x.1)
def refine(x: Optional[int]) -> int:
    if x is None:
        return 0
    return x + 1


# Comprehensions are loops appending to a new list or setting dict items.
# CHECK-LABEL: # comprehensions
# CHECK: prim::ListConstruct()
# CHECK: aten::append
# CHECK: aten::_set_item
def comprehensions(xs: List[int]) -> Dict[int, int]:
    ys = [x * 2 for x in xs]
    return {y: y + 1 for y in ys}


# assert raises AssertionError with its message when the test fails.
# CHECK-LABEL: # asserts
# CHECK: prim::RaiseException(%{{.*}}, %{{.*}})
def asserts(x: int) -> int:
    assert x > 0, "must be positive"
    return x
