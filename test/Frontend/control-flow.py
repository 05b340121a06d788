# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s "[3, -1, 5]" | FileCheck %s --check-prefix=OUT
# Control flow after SSA conversion: variables stored in branches and loops (prim::Store and
# prim::Load while emitting) become prim::If and prim::Loop outputs; if/elif/else nests prim::If;
# `return`, `break` and `continue` go through the exit transform, which makes a `for` loop
# with a `break` or an early return a while-style loop on a counter; a branch that always
# raises gives its outputs as prim::Uninitialized. The CHECK lines are PyTorch's graphs
# (tools/gen/torch_graphs.py --filecheck).
# OUT: -1
import torch
from typing import List, Optional


# CHECK-LABEL: # elif_chain{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=10]()
# CHECK-DAG: %[[V5:[0-9]+]] : int = prim::Constant[value=3]()
# CHECK-DAG: %[[V7:[0-9]+]] : int = prim::Constant[value=5]()
# CHECK-DAG: %[[V10:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK-DAG: %[[V11:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V3:[0-9]+]] : bool = aten::gt(%x.1, %[[V2]])
# CHECK-NEXT: %[[Vy:y(\.[0-9]+)?]] : int = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V5]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[V8:[0-9]+]] : bool = aten::gt(%x.1, %[[V7]])
# CHECK-NEXT: %[[Vy_19:y(\.[0-9]+)?]] : int = prim::If(%[[V8]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V10]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[V11]])
# CHECK-NEXT: -> (%[[Vy_19]])
# CHECK-NEXT: return (%[[Vy]])
def elif_chain(x: int) -> int:
    if x > 10:
        y = 3
    elif x > 5:
        y = 2
    else:
        y = 1
    return y


# CHECK-LABEL: # while_loop{{$}}
# CHECK-NEXT: graph(%n.1 : int):
# CHECK-DAG: %[[Vi_1:i(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=9223372036854775807]()
# CHECK-DAG: %[[V13:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V29:[0-9]+]] : bool = aten::lt(%[[Vi_1]], %n.1)
# CHECK-NEXT: %[[Vtotal:total(\.[0-9]+)?]] : int, %[[Vi:i(\.[0-9]+)?]] : int = prim::Loop(%[[V2]], %[[V29]], %[[Vi_1]], %[[Vi_1]])
# CHECK-NEXT: block0(%[[V7:[0-9]+]] : int, %[[Vtotal_9:total(\.[0-9]+)?]] : int, %[[Vi_13:i(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vtotal_3:total(\.[0-9]+)?]] : int = aten::add(%[[Vtotal_9]], %[[Vi_13]])
# CHECK-NEXT: %[[Vi_9:i(\.[0-9]+)?]] : int = aten::add(%[[Vi_13]], %[[V13]])
# CHECK-NEXT: %[[V5:[0-9]+]] : bool = aten::lt(%[[Vi_9]], %n.1)
# CHECK-NEXT: -> (%[[V5]], %[[Vtotal_3]], %[[Vi_9]])
# CHECK-NEXT: return (%[[Vtotal]])
def while_loop(n: int) -> int:
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total


# CHECK-LABEL: # early_return{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V5:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V7:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[V3:[0-9]+]] : bool = aten::gt(%x.1, %[[V2]])
# CHECK-NEXT: %[[V25:[0-9]+]] : int = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V5]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vy_3:y(\.[0-9]+)?]] : int = aten::mul(%x.1, %[[V7]])
# CHECK-NEXT: -> (%[[Vy_3]])
# CHECK-NEXT: return (%[[V25]])
def early_return(x: int) -> int:
    if x > 0:
        return 1
    y = x * 2
    return y


# CHECK-LABEL: # always_throws{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK-DAG: %[[V7:[0-9]+]] : str = prim::Constant[value="builtins.ValueError"]()
# CHECK-DAG: %[[V6:[0-9]+]] : str = prim::Constant[value="negative"]()
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V20:[0-9]+]] : int = prim::Uninitialized()
# CHECK: %[[V3:[0-9]+]] : bool = aten::gt(%x.1, %[[V2]])
# CHECK-NEXT: %[[Vy:y(\.[0-9]+)?]] : int = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%x.1)
# CHECK-NEXT: block1():
# CHECK-NEXT: = prim::RaiseException(%[[V6]], %[[V7]])
# CHECK-NEXT: -> (%[[V20]])
# CHECK-NEXT: return (%[[Vy]])
def always_throws(x: int) -> int:
    if x > 0:
        y = x
    else:
        raise ValueError("negative")
    return y


# CHECK-LABEL: # both_branches_return{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V6:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V3:[0-9]+]] : bool = aten::gt(%x.1, %[[V2]])
# CHECK-NEXT: %[[V27:[0-9]+]] : int = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%x.1)
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[V6]])
# CHECK-NEXT: return (%[[V27]])
def both_branches_return(x: int) -> int:
    if x > 0:
        return x
    else:
        z = 1
    return z


# CHECK-LABEL: # loop_continue{{$}}
# CHECK-NEXT: graph(%xs.1 : int[]):
# CHECK-DAG: %[[V51:[0-9]+]] : int = prim::Constant[value=9223372036854775807]()
# CHECK-DAG: %[[V49:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V4:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK: %[[V3:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V50:[0-9]+]] : bool = aten::gt(%[[V3]], %[[Vs_1]])
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : int, %[[V52:[0-9]+]] : int = prim::Loop(%[[V51]], %[[V50]], %[[Vs_1]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[V5:[0-9]+]] : int, %[[Vs_11:s(\.[0-9]+)?]] : int, %[[V53:[0-9]+]] : int):
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V53]])
# CHECK-NEXT: %[[V8:[0-9]+]] : bool = aten::lt(%[[Vx_1]], %[[Vs_1]])
# CHECK-NEXT: %[[V47:[0-9]+]] : int = prim::If(%[[V8]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[Vs_11]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vs_13:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_11]], %[[Vx_1]])
# CHECK-NEXT: -> (%[[Vs_13]])
# CHECK-NEXT: %[[V54:[0-9]+]] : int = aten::add(%[[V53]], %[[V49]])
# CHECK-NEXT: %[[V55:[0-9]+]] : bool = aten::lt(%[[V54]], %[[V3]])
# CHECK-NEXT: %[[V56:[0-9]+]] : bool = aten::__and__(%[[V55]], %[[V4]])
# CHECK-NEXT: -> (%[[V56]], %[[V47]], %[[V54]])
# CHECK-NEXT: return (%[[Vs]])
def loop_continue(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            continue
        s += x
    return s


# CHECK-LABEL: # while_break{{$}}
# CHECK-NEXT: graph(%n.1 : int):
# CHECK-DAG: %[[V22:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vi_1:i(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=9223372036854775807]()
# CHECK-DAG: %[[V11:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V20:[0-9]+]] : bool = prim::Constant[value=0]()
# CHECK: %[[Vi:i(\.[0-9]+)?]] : int = prim::Loop(%[[V2]], %[[V22]], %[[Vi_1]])
# CHECK-NEXT: block0(%[[V5:[0-9]+]] : int, %[[Vi_13:i(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[V8:[0-9]+]] : bool = aten::ge(%[[Vi_13]], %n.1)
# CHECK-NEXT: %[[V50:[0-9]+]] : bool, %[[V51:[0-9]+]] : int = prim::If(%[[V8]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V20]], %[[Vi_13]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vi_15:i(\.[0-9]+)?]] : int = aten::add(%[[Vi_13]], %[[V11]])
# CHECK-NEXT: -> (%[[V22]], %[[Vi_15]])
# CHECK-NEXT: -> (%[[V50]], %[[V51]])
# CHECK-NEXT: return (%[[Vi]])
def while_break(n: int) -> int:
    i = 0
    while True:
        if i >= n:
            break
        i += 1
    return i


# CHECK-LABEL: # for_break{{$}}
# CHECK-NEXT: graph(%n.1 : int):
# CHECK-DAG: %[[V52:[0-9]+]] : int = prim::Constant[value=9223372036854775807]()
# CHECK-DAG: %[[V50:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V5:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vr_1:r(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V8:[0-9]+]] : int = prim::Constant[value=3]()
# CHECK-DAG: %[[V21:[0-9]+]] : bool = prim::Constant[value=0]()
# CHECK: %[[V51:[0-9]+]] : bool = aten::gt(%n.1, %[[Vr_1]])
# CHECK-NEXT: %[[Vr:r(\.[0-9]+)?]] : int, %[[V53:[0-9]+]] : int = prim::Loop(%[[V52]], %[[V51]], %[[Vr_1]], %[[Vr_1]])
# CHECK-NEXT: block0(%[[V6:[0-9]+]] : int, %[[Vr_11:r(\.[0-9]+)?]] : int, %[[V54:[0-9]+]] : int):
# CHECK-NEXT: %[[V9:[0-9]+]] : bool = aten::gt(%[[V54]], %[[V8]])
# CHECK-NEXT: %[[V47:[0-9]+]] : bool, %[[V48:[0-9]+]] : int = prim::If(%[[V9]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V21]], %[[Vr_11]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vr_13:r(\.[0-9]+)?]] : int = aten::add(%[[Vr_11]], %[[V54]])
# CHECK-NEXT: -> (%[[V5]], %[[Vr_13]])
# CHECK-NEXT: %[[V55:[0-9]+]] : int = aten::add(%[[V54]], %[[V50]])
# CHECK-NEXT: %[[V56:[0-9]+]] : bool = aten::lt(%[[V55]], %n.1)
# CHECK-NEXT: %[[V57:[0-9]+]] : bool = aten::__and__(%[[V56]], %[[V47]])
# CHECK-NEXT: -> (%[[V57]], %[[V48]], %[[V55]])
# CHECK-NEXT: return (%[[Vr]])
def for_break(n: int) -> int:
    r = 0
    for i in range(n):
        if i > 3:
            break
        r += i
    return r


# CHECK-LABEL: # loop_return{{$}}
# CHECK-NEXT: graph(%xs.1 : int[]):
# CHECK-DAG: %[[V33:[0-9]+]] : int = prim::Constant[value=9223372036854775807]()
# CHECK-DAG: %[[V31:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V7:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V17:[0-9]+]] : bool = prim::Constant[value=0]()
# CHECK-DAG: %[[V16:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[V19:[0-9]+]] : int = prim::Uninitialized()
# CHECK: %[[V2:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V32:[0-9]+]] : bool = aten::gt(%[[V2]], %[[V7]])
# CHECK-NEXT: %[[V24:[0-9]+]] : bool, %[[V25:[0-9]+]] : int, %[[V34:[0-9]+]] : int = prim::Loop(%[[V33]], %[[V32]], %[[V17]], %[[V19]], %[[V7]])
# CHECK-NEXT: block0(%[[V4:[0-9]+]] : int, %[[V23:[0-9]+]] : bool, %[[V26:[0-9]+]] : int, %[[V35:[0-9]+]] : int):
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V35]])
# CHECK-NEXT: %[[V8:[0-9]+]] : bool = aten::lt(%[[Vx_1]], %[[V7]])
# CHECK-NEXT: %[[V29:[0-9]+]] : bool, %[[V20:[0-9]+]] : bool, %[[V21:[0-9]+]] : int = prim::If(%[[V8]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V17]], %[[V16]], %[[Vx_1]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[V16]], %[[V17]], %[[V19]])
# CHECK-NEXT: %[[V36:[0-9]+]] : int = aten::add(%[[V35]], %[[V31]])
# CHECK-NEXT: %[[V37:[0-9]+]] : bool = aten::lt(%[[V36]], %[[V2]])
# CHECK-NEXT: %[[V38:[0-9]+]] : bool = aten::__and__(%[[V37]], %[[V29]])
# CHECK-NEXT: -> (%[[V38]], %[[V20]], %[[V21]], %[[V36]])
# CHECK-NEXT: %[[V28:[0-9]+]] : int = prim::If(%[[V24]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V25]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[V7]])
# CHECK-NEXT: return (%[[V28]])
def loop_return(xs: List[int]) -> int:
    for x in xs:
        if x < 0:
            return x
    return 0
