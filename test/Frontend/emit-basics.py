# RUN: ember-opt %s --dce | FileCheck %s
# The IR emitter: parameters (unannotated ones are Tensors), literals, operators, calls of
# builtins and Tensor methods, and the graph PyTorch's emitter gives them after SSA conversion
# and its cleanup passes.
import torch
import math
from typing import List, Optional, Tuple


# CHECK-LABEL: # arith
# CHECK-NEXT: graph(%x.1 : Tensor,
# CHECK-NEXT:       %n.1 : int):
# CHECK-DAG: %[[TWO:.*]] : int = prim::Constant[value=2]()
# CHECK-DAG: %[[ONE:.*]] : int = prim::Constant[value=1]()
# CHECK: %[[M:.*]] : Tensor = aten::mul(%x.1, %[[TWO]])
# CHECK: %[[A:.*]] : Tensor = aten::add(%[[M]], %n.1, %[[ONE]])
# CHECK: return (%[[A]])
def arith(x, n: int):
    return x * 2 + n


# Integer literals are folded when negated, `/` on ints is a float division, `//` floors.
# CHECK-LABEL: # numbers
# CHECK-DAG: prim::Constant[value=-3]()
# CHECK: aten::div(%a.1, %b.1)
# CHECK: aten::floordiv(%a.1, %b.1)
# CHECK: aten::remainder(%a.1, %b.1)
# CHECK: aten::pow(%a.1, %b.1)
def numbers(a: int, b: int) -> Tuple[float, int, int, float, int]:
    return a / b, a // b, a % b, a ** b, -3


# Builtins of Python and of math, and Tensor methods, go through schema matching.
# CHECK-LABEL: # builtins
# CHECK: aten::len(%xs.1)
# CHECK: aten::Float(%n.1)
# CHECK: aten::sqrt
# CHECK: aten::sum(%x.1
# CHECK: aten::size(%x.1)
def builtins(xs: List[int], n: int, x: torch.Tensor):
    return len(xs), math.sqrt(float(n)), x.sum(), x.shape


# Strings: format and percent format.
# CHECK-LABEL: # strings
# CHECK: aten::format
# CHECK: aten::percentFormat
def strings(n: int) -> Tuple[str, str]:
    return "{} items".format(n), "%d items" % n


# Comparisons and short-circuit booleans become prim::If, as in PyTorch.
# CHECK-LABEL: # logic
# CHECK: %[[C:.*]] : bool = aten::gt(%a.1,
# CHECK: prim::If(%[[C]])
# CHECK: aten::lt(%b.1,
def logic(a: int, b: int) -> bool:
    return a > 0 and b < 3


# A ternary is a prim::If with one output.
# CHECK-LABEL: # ternary
# CHECK: %[[R:.*]] : int = prim::If(
# CHECK: return (%[[R]])
def ternary(c: bool, a: int, b: int) -> int:
    return a if c else b
