# RUN: ember-opt %s --inline --dce | FileCheck %s
# RUN: ember-opt %s --dce | FileCheck %s --check-prefix=CALL
# Calls between functions of a file are prim::CallFunction on a function constant; --inline
# replaces each with the callee's graph, nested calls included, as PyTorch's `inlined_graph`
# shows it (tools/gen/torch_graphs.py --filecheck --inlined; the dead function constants
# PyTorch leaves are gone after --dce).
import torch
from typing import List


def square(x: int) -> int:
    return x * x


def sum_squares(xs: List[int]) -> int:
    s = 0
    for x in xs:
        s += square(x)
    return s


# Without --inline: the calls. Ember prints a function constant with the callee's graph beside
# it (`prim::Constant_0[name="square"]`, the graph after `with prim::Constant_0 =`), so that the
# text reads back; PyTorch prints only `prim::Constant[name="square"]()`.
# CALL-LABEL: # entry{{$}}
# CALL-DAG: %[[G:[0-9]+]] : Function = prim::Constant{{(_[0-9]+)?}}[name="square"]()
# CALL-DAG: %[[F:[0-9]+]] : Function = prim::Constant{{(_[0-9]+)?}}[name="sum_squares"]()
# CALL: prim::CallFunction(%[[F]], %xs.1)
# CALL-NEXT: prim::CallFunction(%[[G]], %k.1)

# CHECK-LABEL: # entry{{$}}
# CHECK-NEXT: graph(%xs.1 : int[],
# CHECK-NEXT: %k.1 : int):
# CHECK-DAG: %[[V9:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-NOT: prim::CallFunction
# CHECK: %[[V11:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : int = prim::Loop(%[[V11]], %[[V9]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[V13:[0-9]+]] : int, %[[Vs_11:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V13]])
# CHECK-NEXT: %[[V16:[0-9]+]] : int = aten::mul(%[[Vx_1]], %[[Vx_1]])
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_11]], %[[V16]])
# CHECK-NEXT: -> (%[[V9]], %[[Vs_5]])
# CHECK-NEXT: %[[V20:[0-9]+]] : int = aten::mul(%k.1, %k.1)
# CHECK-NEXT: %[[V21:[0-9]+]] : int = aten::add(%[[Vs]], %[[V20]])
# CHECK-NEXT: return (%[[V21]])
def entry(xs: List[int], k: int) -> int:
    return sum_squares(xs) + square(k)
