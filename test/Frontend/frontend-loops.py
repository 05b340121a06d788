# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s "[1, -2, 42, 7]" | FileCheck %s --check-prefix=OUT
# RUN: ember-run %s "[1, 200, 42]" | FileCheck %s --check-prefix=OUT2
# RUN: ember-run %s --entry over_zip "[1, 2, 3]" "[4, 5]" | FileCheck %s --check-prefix=ZIP
# RUN: ember-run %s --entry over_string '"banana"' | FileCheck %s --check-prefix=STR
# for over every iterable kind (tuples are unrolled; lists, dicts, strings and tensors become
# prim::Loop over an index), zip, enumerate, and break/continue/return inside loops.
# OUT: 2
# OUT2: -1
# ZIP: 14
# STR: 3
import torch
from typing import Dict, List, Tuple


# CHECK-LABEL: # over_tuple
# CHECK: %v.1 : int, %v.5 : int, %v.9 : int = prim::TupleUnpack(%t.1)
# CHECK-NOT: prim::Loop
# CHECK: return
def over_tuple(t: Tuple[int, int, int]) -> int:
    s = 0
    for v in t:
        s += v
    return s


# CHECK-LABEL: # over_dict
# CHECK: %[[K:.*]] : str[] = aten::keys(%d.1)
# CHECK: prim::Loop
# CHECK: aten::__getitem__(%[[K]],
# CHECK: %[[I:.*]] : (str, int)[] = aten::items(%d.1)
# CHECK: prim::Loop
# CHECK: prim::TupleUnpack
def over_dict(d: Dict[str, int]) -> int:
    s = 0
    for k in d:
        s += d[k]
    for k, v in d.items():
        s += v
    return s


# CHECK-LABEL: # over_string
# CHECK: aten::len(%s.1)
# CHECK: prim::Loop
# CHECK: %ch.1 : str = aten::__getitem__(%s.1,
def over_string(s: str) -> int:
    n = 0
    for ch in s:
        if ch == "a":
            n += 1
    return n


# CHECK-LABEL: # over_tensor
# CHECK: aten::len(%x.1)
# CHECK: prim::Loop
# CHECK: %row.1 : Tensor = aten::select(%x.1,
def over_tensor(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(3)
    for row in x:
        acc = acc + row
    return acc


# CHECK-LABEL: # over_zip
# CHECK: aten::len(%xs.1)
# CHECK: aten::len(%ys.1)
# CHECK: prim::min
# CHECK: prim::Loop
def over_zip(xs: List[int], ys: List[int]) -> int:
    s = 0
    for a, b in zip(xs, ys):
        s += a * b
    return s


# A `return` inside the loop leaves it through the exit transform: the loop carries whether
# the function returned and the value.
# CHECK-LABEL: # loop_exits
# CHECK: %{{.*}} : bool, %{{.*}} : int, %{{.*}} : int = prim::Loop(
# CHECK: prim::If
# CHECK: aten::__and__
# CHECK: prim::If
def loop_exits(xs: List[int]) -> int:
    for i, x in enumerate(xs):
        if x < 0:
            continue
        if x > 100:
            break
        if x == 42:
            return i
    return -1
