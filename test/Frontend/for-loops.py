# RUN: ember-opt %s --dce | FileCheck %s
# `for` over each iterable PyTorch accepts: a range (the loop counter), a list, a string and a
# tensor (an index loop with aten::__getitem__ / aten::select), a dict (its keys) and its items,
# a tuple (unrolled), enumerate and zip (in lockstep up to the shortest length, prim::min).
# PyTorch runs `reversed` as a call back into Python (frontend-errors-more.py). The CHECK lines
# are PyTorch's graphs (tools/gen/torch_graphs.py --filecheck).
import torch
from typing import Dict, List, Tuple


# CHECK-LABEL: # over_range{{$}}
# CHECK-NEXT: graph(%n.1 : int):
# CHECK-DAG: %[[V5:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK: %[[Vs:s(\.[0-9]+)?]] : int = prim::Loop(%n.1, %[[V5]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[Vi_1:i(\.[0-9]+)?]] : int, %[[Vs_11:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_11]], %[[Vi_1]])
# CHECK-NEXT: -> (%[[V5]], %[[Vs_5]])
# CHECK-NEXT: return (%[[Vs]])
def over_range(n: int) -> int:
    s = 0
    for i in range(n):
        s += i
    return s


# CHECK-LABEL: # over_list{{$}}
# CHECK-NEXT: graph(%xs.1 : int[]):
# CHECK-DAG: %[[V4:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK: %[[V3:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : int = prim::Loop(%[[V3]], %[[V4]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[V5:[0-9]+]] : int, %[[Vs_11:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V5]])
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_11]], %[[Vx_1]])
# CHECK-NEXT: -> (%[[V4]], %[[Vs_5]])
# CHECK-NEXT: return (%[[Vs]])
def over_list(xs: List[int]) -> int:
    s = 0
    for x in xs:
        s += x
    return s


# CHECK-LABEL: # over_tuple{{$}}
# CHECK-NEXT: graph(%t.1 : (int, float)):
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : float = prim::Constant[value=0.]()
# CHECK: %[[Vv_1:v(\.[0-9]+)?]] : int, %[[Vv_5:v(\.[0-9]+)?]] : float = prim::TupleUnpack(%t.1)
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : float = aten::add(%[[Vs_1]], %[[Vv_1]])
# CHECK-NEXT: %[[Vs_9:s(\.[0-9]+)?]] : float = aten::add(%[[Vs_5]], %[[Vv_5]])
# CHECK-NEXT: return (%[[Vs_9]])
def over_tuple(t: Tuple[int, float]) -> float:
    s = 0.0
    for v in t:
        s += v
    return s


# CHECK-LABEL: # over_dict{{$}}
# CHECK-NEXT: graph(%d.1 : Dict(str, int)):
# CHECK-DAG: %[[V5:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK: %[[V3:[0-9]+]] : str[] = aten::keys(%d.1)
# CHECK-NEXT: %[[V4:[0-9]+]] : int = aten::len(%[[V3]])
# CHECK-NEXT: %[[Vs_19:s(\.[0-9]+)?]] : int = prim::Loop(%[[V4]], %[[V5]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[V6:[0-9]+]] : int, %[[Vs_17:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vk_1:k(\.[0-9]+)?]] : str = aten::__getitem__(%[[V3]], %[[V6]])
# CHECK-NEXT: %[[V11:[0-9]+]] : int = aten::__getitem__(%d.1, %[[Vk_1]])
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_17]], %[[V11]])
# CHECK-NEXT: -> (%[[V5]], %[[Vs_5]])
# CHECK-NEXT: %[[V15:[0-9]+]] : (str, int)[] = aten::items(%d.1)
# CHECK-NEXT: %[[V16:[0-9]+]] : int = aten::len(%[[V15]])
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : int = prim::Loop(%[[V16]], %[[V5]], %[[Vs_19]])
# CHECK-NEXT: block0(%[[V18:[0-9]+]] : int, %[[Vs_21:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[V19:[0-9]+]] : (str, int) = aten::__getitem__(%[[V15]], %[[V18]])
# CHECK-NEXT: %[[Vk:k(\.[0-9]+)?]] : str, %[[Vv_1:v(\.[0-9]+)?]] : int = prim::TupleUnpack(%[[V19]])
# CHECK-NEXT: %[[Vs_11:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_21]], %[[Vv_1]])
# CHECK-NEXT: -> (%[[V5]], %[[Vs_11]])
# CHECK-NEXT: return (%[[Vs]])
def over_dict(d: Dict[str, int]) -> int:
    s = 0
    for k in d:
        s += d[k]
    for k, v in d.items():
        s += v
    return s


# CHECK-LABEL: # over_string{{$}}
# CHECK-NEXT: graph(%s.1 : str):
# CHECK-DAG: %[[V8:[0-9]+]] : str = prim::Constant[value="a"]()
# CHECK-DAG: %[[V4:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vn_1:n(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V12:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V3:[0-9]+]] : int = aten::len(%s.1)
# CHECK-NEXT: %[[Vn:n(\.[0-9]+)?]] : int = prim::Loop(%[[V3]], %[[V4]], %[[Vn_1]])
# CHECK-NEXT: block0(%[[V5:[0-9]+]] : int, %[[Vn_21:n(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vch_1:ch(\.[0-9]+)?]] : str = aten::__getitem__(%s.1, %[[V5]])
# CHECK-NEXT: %[[V9:[0-9]+]] : bool = aten::eq(%[[Vch_1]], %[[V8]])
# CHECK-NEXT: %[[Vn_19:n(\.[0-9]+)?]] : int = prim::If(%[[V9]])
# CHECK-NEXT: block0():
# CHECK-NEXT: %[[Vn_5:n(\.[0-9]+)?]] : int = aten::add(%[[Vn_21]], %[[V12]])
# CHECK-NEXT: -> (%[[Vn_5]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[Vn_21]])
# CHECK-NEXT: -> (%[[V4]], %[[Vn_19]])
# CHECK-NEXT: return (%[[Vn]])
def over_string(s: str) -> int:
    n = 0
    for ch in s:
        if ch == "a":
            n += 1
    return n


# CHECK-LABEL: # over_tensor{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor):
# CHECK-DAG: %[[V16:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V12:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V10:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[V3:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V1:[0-9]+]] : int = prim::Constant[value=3]()
# CHECK: %[[V2:[0-9]+]] : int[] = prim::ListConstruct(%[[V1]])
# CHECK-NEXT: %[[Vacc_1:acc(\.[0-9]+)?]] : Tensor = aten::zeros(%[[V2]], %[[V3]], %[[V3]], %[[V3]], %[[V3]])
# CHECK-NEXT: %[[V9:[0-9]+]] : int = aten::len(%x.1)
# CHECK-NEXT: %[[Vacc:acc(\.[0-9]+)?]] : Tensor = prim::Loop(%[[V9]], %[[V10]], %[[Vacc_1]])
# CHECK-NEXT: block0(%[[V11:[0-9]+]] : int, %[[Vacc_11:acc(\.[0-9]+)?]] : Tensor):
# CHECK-NEXT: %[[Vrow_1:row(\.[0-9]+)?]] : Tensor = aten::select(%x.1, %[[V12]], %[[V11]])
# CHECK-NEXT: %[[Vacc_5:acc(\.[0-9]+)?]] : Tensor = aten::add(%[[Vacc_11]], %[[Vrow_1]], %[[V16]])
# CHECK-NEXT: -> (%[[V10]], %[[Vacc_5]])
# CHECK-NEXT: return (%[[Vacc]])
def over_tensor(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(3)
    for row in x:
        acc = acc + row
    return acc


# CHECK-LABEL: # over_enumerate_zip{{$}}
# CHECK-NEXT: graph(%xs.1 : int[],
# CHECK-NEXT: %ys.1 : int[]):
# CHECK-DAG: %[[V10:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[Vs_1:s(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V3:[0-9]+]] : int = prim::Constant[value=9223372036854775807]()
# CHECK: %[[V7:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V8:[0-9]+]] : int[] = prim::ListConstruct(%[[V3]], %[[V7]])
# CHECK-NEXT: %[[V9:[0-9]+]] : int = prim::min(%[[V8]])
# CHECK-NEXT: %[[Vs_19:s(\.[0-9]+)?]] : int = prim::Loop(%[[V9]], %[[V10]], %[[Vs_1]])
# CHECK-NEXT: block0(%[[Vi_1:i(\.[0-9]+)?]] : int, %[[Vs_17:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[Vi_1]])
# CHECK-NEXT: %[[V17:[0-9]+]] : int = aten::mul(%[[Vi_1]], %[[Vx_1]])
# CHECK-NEXT: %[[Vs_5:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_17]], %[[V17]])
# CHECK-NEXT: -> (%[[V10]], %[[Vs_5]])
# CHECK-NEXT: %[[V22:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: %[[V23:[0-9]+]] : int = aten::len(%ys.1)
# CHECK-NEXT: %[[V24:[0-9]+]] : int[] = prim::ListConstruct(%[[V22]], %[[V23]])
# CHECK-NEXT: %[[V25:[0-9]+]] : int = prim::min(%[[V24]])
# CHECK-NEXT: %[[Vs:s(\.[0-9]+)?]] : int = prim::Loop(%[[V25]], %[[V10]], %[[Vs_19]])
# CHECK-NEXT: block0(%[[V27:[0-9]+]] : int, %[[Vs_21:s(\.[0-9]+)?]] : int):
# CHECK-NEXT: %[[Va_1:a(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V27]])
# CHECK-NEXT: %[[Vb_1:b(\.[0-9]+)?]] : int = aten::__getitem__(%ys.1, %[[V27]])
# CHECK-NEXT: %[[V34:[0-9]+]] : int = aten::sub(%[[Va_1]], %[[Vb_1]])
# CHECK-NEXT: %[[Vs_11:s(\.[0-9]+)?]] : int = aten::add(%[[Vs_21]], %[[V34]])
# CHECK-NEXT: -> (%[[V10]], %[[Vs_11]])
# CHECK-NEXT: return (%[[Vs]])
def over_enumerate_zip(xs: List[int], ys: List[int]) -> int:
    s = 0
    for i, x in enumerate(xs):
        s += i * x
    for a, b in zip(xs, ys):
        s += a - b
    return s
