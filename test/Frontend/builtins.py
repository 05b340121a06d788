# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s "[1, 2, 3]" "[0.5, 2.0]" | FileCheck %s --check-prefix=OUT
# Python builtins as PyTorch emits them: len, range (1, 2 and 3 arguments), enumerate (with a
# start), zip, min, max, abs, int/float/bool/str casts, isinstance (folded where the static
# type decides it), hasattr (decided statically) and getattr (a prim::GetAttr). The CHECK lines
# are PyTorch's graphs (tools/gen/torch_graphs.py --filecheck).
# OUT: 18.5
import torch
from typing import Dict, List, Optional, Tuple


# CHECK-LABEL: # lengths{{$}}
# CHECK-NEXT: graph(%xs.1 : int[],
# CHECK-NEXT: %s.1 : str,
# CHECK-NEXT: %d.1 : Dict(str, int),
# CHECK-NEXT: %t.1 : Tensor):
# CHECK: %[[V5:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V7:[0-9]+]] : int = aten::len(%s.1)
# CHECK-NEXT: %[[V8:[0-9]+]] : int = aten::add(%[[V5]], %[[V7]])
# CHECK-NEXT: %[[V10:[0-9]+]] : int = aten::len(%d.1)
# CHECK-NEXT: %[[V11:[0-9]+]] : int = aten::add(%[[V8]], %[[V10]])
# CHECK-NEXT: %[[V13:[0-9]+]] : int = aten::len(%t.1)
# CHECK-NEXT: %[[V14:[0-9]+]] : int = aten::add(%[[V11]], %[[V13]])
# CHECK-NEXT: return (%[[V14]])
def lengths(xs: List[int], s: str, d: Dict[str, int], t: torch.Tensor) -> int:
    return len(xs) + len(s) + len(d) + len(t)


# CHECK-LABEL: # ranges{{$}}
# CHECK-NEXT: graph(%a.1 : int,
# CHECK-NEXT: %b.1 : int):
# CHECK-DAG: %[[V14:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V6:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V25:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[Vs_25:s(\.[0-9]+)?]] : int = prim::Loop(%b.1, %[[V6]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[Vi_1:i(\.[0-9]+)?]] : int, %[[Vs_23:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_23]], %[[Vi_1]])
# CHECK-NEXT: -> (%[[V6]], %[[Vs_5]])
# CHECK-NEXT: %[[V15:[0-9]+]] : int = aten::__range_length(%a.1, %b.1, %[[V14]])
# CHECK-NEXT: %[[Vs_29:s(\.[0-9]+)?]] : int = prim::Loop(%[[V15]], %[[V6]], %[[Vs_25]])
# CHECK-NEXT: block0(%[[V17:[0-9]+]] : int, %[[Vs_27:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vi_5:i(\.[0-9]+)?]] : int = aten::__derive_index(%[[V17]], %a.1, %[[V14]])
# CHECK-NEXT: %[[Vs_11:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_27]], %[[Vi_5]])
# CHECK-NEXT: -> (%[[V6]], %[[Vs_11]])
# CHECK-NEXT: %[[V26:[0-9]+]] : int = aten::__range_length(%a.1, %b.1, %[[V25]])
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : int = prim::Loop(%[[V26]], %[[V6]], %[[Vs_29]])
# CHECK-NEXT: block0(%[[V28:[0-9]+]] : int, %[[Vs_31:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vi_9:i(\.[0-9]+)?]] : int = aten::__derive_index(%[[V28]], %a.1, %[[V25]])
# CHECK-NEXT: %[[Vs_17:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_31]], %[[Vi_9]])
# CHECK-NEXT: -> (%[[V6]], %[[Vs_17]])
# CHECK-NEXT: return (%[[Vs]])
def ranges(a: int, b: int) -> int:
    s = 0
    for i in range(b):
        s += i
    for i in range(a, b):
        s += i
    for i in range(a, b, 2):
        s += i
    return s


# CHECK-LABEL: # min_max_abs{{$}}
# CHECK-NEXT: graph(%a.1 : int,
# CHECK-NEXT: %b.1 : int,
# CHECK-NEXT: %x.1 : float,
# CHECK-NEXT: %xs.1 : int[]):
# CHECK-DAG: %[[V8:[0-9]+]] : float = prim::Constant[value=1.]()
# CHECK: %[[V6:[0-9]+]] : int = prim::min(%a.1, %b.1)
# CHECK-NEXT: %[[V9:[0-9]+]] : float = prim::max(%x.1, %[[V8]])
# CHECK-NEXT: %[[V11:[0-9]+]] : int = prim::abs(%a.1)
# CHECK-NEXT: %[[V13:[0-9]+]] : float = prim::abs(%x.1)
# CHECK-NEXT: %[[V15:[0-9]+]] : int = prim::max(%xs.1)
# CHECK-NEXT: %[[V16:[0-9]+]] : (int, float, int, float, int) = prim::TupleConstruct(%[[V6]], %[[V9]], %[[V11]], %[[V13]], %[[V15]])
# CHECK-NEXT: return (%[[V16]])
def min_max_abs(a: int, b: int, x: float, xs: List[int]) -> Tuple[int, float, int, float, int]:
    return min(a, b), max(x, 1.0), abs(a), abs(x), max(xs)


# CHECK-LABEL: # casts{{$}}
# CHECK-NEXT: graph(%a.1 : int,
# CHECK-NEXT: %x.1 : float,
# CHECK-NEXT: %t.1 : Tensor,
# CHECK-NEXT: %s.1 : str):
# CHECK: %[[V6:[0-9]+]] : int = aten::Int(%x.1)
# CHECK-NEXT: %[[V9:[0-9]+]] : float = aten::Float(%a.1)
# CHECK-NEXT: %[[V12:[0-9]+]] : bool = aten::Bool(%a.1)
# CHECK-NEXT: %[[V15:[0-9]+]] : str = aten::str(%a.1)
# CHECK-NEXT: %[[V18:[0-9]+]] : int = aten::Int(%t.1)
# CHECK-NEXT: %[[V21:[0-9]+]] : float = aten::Float(%s.1)
# CHECK-NEXT: %[[V22:[0-9]+]] : (int, float, bool, str, int, float) = prim::TupleConstruct(%[[V6]], %[[V9]], %[[V12]], %[[V15]], %[[V18]], %[[V21]])
# CHECK-NEXT: return (%[[V22]])
def casts(a: int, x: float, t: torch.Tensor, s: str) -> Tuple[int, float, bool, str, int, float]:
    return int(x), float(a), bool(a), str(a), int(t), float(s)


# CHECK-LABEL: # is_instance{{$}}
# CHECK-NEXT: graph(%x.1 : int?,
# CHECK-NEXT: %t.1 : Tensor):
# CHECK-DAG: %[[V12:[0-9]+]] : bool = prim::Constant[value=0]()
# CHECK-DAG: %[[V8:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK: %[[V3:[0-9]+]] : bool = prim::isinstance[types=[int]](%x.1)
# CHECK-NEXT: %[[V13:[0-9]+]] : bool = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V8]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[V12]])
# CHECK-NEXT: return (%[[V13]])
def is_instance(x: Optional[int], t: torch.Tensor) -> bool:
    return isinstance(x, int) and isinstance(t, torch.Tensor)


class Box:
    def __init__(self, v: int):
        self.v = v


# CHECK-LABEL: # get_has_attr{{$}}
# CHECK-NEXT: graph(%b.1 : __torch__.Box):
# CHECK: %[[Vv:v(\.[0-9]+)?]] : int = prim::GetAttr[name="v"](%b.1)
# CHECK-NEXT: return (%[[Vv]])
def get_has_attr(b: Box) -> int:
    if hasattr(b, "w"):
        return 1
    if hasattr(b, "v"):
        return getattr(b, "v")
    return 0


# CHECK-LABEL: # enum_zip{{$}}
# CHECK-NEXT: graph(%xs.1 : int[],
# CHECK-NEXT: %ys.1 : float[]):
# CHECK-DAG: %[[V11:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[V57:[0-9]+]] : int = prim::Constant[value=9223372036854775806]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : float = prim::Constant[value=0.]()
# CHECK-DAG: %[[V3:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V8:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V9:[0-9]+]] : int[] = prim::ListConstruct(%[[V57]], %[[V8]])
# CHECK-NEXT: %[[V10:[0-9]+]] : int = prim::min(%[[V9]])
# CHECK-NEXT: %[[Vs_19:s(\.[0-9]+)?]] : float = prim::Loop(%[[V10]], %[[V11]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[V12:[0-9]+]] : int, %[[Vs_17:s(\.[0-9]+)?]] : float):
# CHECK-NEXT: %[[Vi_1:i(\.[0-9]+)?]] : int = aten::__derive_index(%[[V12]], %[[V3]], %[[V3]])
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V12]])
# CHECK-NEXT: %[[V19:[0-9]+]] : int = aten::mul(%[[Vi_1]], %[[Vx_1]])
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : float = aten::add(%[[Vs_17]], %[[V19]])
# CHECK-NEXT: -> (%[[V11]], %[[Vs_5]])
# CHECK-NEXT: %[[V24:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V25:[0-9]+]] : int = aten::len(%ys.1)
# CHECK-NEXT: %[[V26:[0-9]+]] : int[] = prim::ListConstruct(%[[V24]], %[[V25]])
# CHECK-NEXT: %[[V27:[0-9]+]] : int = prim::min(%[[V26]])
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : float = prim::Loop(%[[V27]], %[[V11]], %[[Vs_19]])
# CHECK-NEXT: block0(%[[V29:[0-9]+]] : int, %[[Vs_21:s(\.[0-9]+)?]] : float):
# CHECK-NEXT: %[[Vx_5:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V29]])
# CHECK-NEXT: %[[Vy_1:y(\.[0-9]+)?]] : float = aten::__getitem__(%ys.1, %[[V29]])
# CHECK-NEXT: %[[V36:[0-9]+]] : float = aten::mul(%[[Vx_5]], %[[Vy_1]])
# CHECK-NEXT: %[[Vs_11:s(\.[0-9]+)?]] : float = aten::add(%[[Vs_21]], %[[V36]])
# CHECK-NEXT: -> (%[[V11]], %[[Vs_11]])
# CHECK-NEXT: return (%[[Vs]])
def enum_zip(xs: List[int], ys: List[float]) -> float:
    s = 0.0
    for i, x in enumerate(xs, 1):
        s += i * x
    for x, y in zip(xs, ys):
        s += x * y
    return s
