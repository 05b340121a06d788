# RUN: ember-opt %s --dce | FileCheck %s
# Overload resolution through the schema catalogue with PyTorch's implicit conversions: an int
# where a float is expected, the Scalar overloads for numbers, a Tensor where an int is (aten::IntImplicit), a tuple or varargs where an int[] is
# (prim::ListConstruct), an int where an int[2] is, keyword arguments and defaults.
# The CHECK lines are PyTorch's graphs (tools/gen/torch_graphs.py --filecheck).
import math
import torch
import torch.nn.functional as F
from typing import List, Tuple


# CHECK-LABEL: # int_to_float{{$}}
# CHECK-NEXT: graph(%n.1 : int):
# CHECK-DAG: %[[V4:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[V2:[0-9]+]] : float = aten::sqrt(%n.1)
# CHECK-NEXT: %[[V5:[0-9]+]] : float = aten::pow(%n.1, %[[V4]])
# CHECK-NEXT: %[[V6:[0-9]+]] : float = aten::add(%[[V2]], %[[V5]])
# CHECK-NEXT: return (%[[V6]])
def int_to_float(n: int) -> float:
    return math.sqrt(n) + math.pow(n, 2)


# CHECK-LABEL: # number_to_tensor{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor,
# CHECK-NEXT: %n.1 : int):
# CHECK-DAG: %[[V4:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V6:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[V5:[0-9]+]] : Tensor = aten::add(%x.1, %n.1, %[[V4]])
# CHECK-NEXT: %[[V8:[0-9]+]] : Tensor = aten::pow(%[[V6]], %x.1)
# CHECK-NEXT: %[[V10:[0-9]+]] : Tensor = aten::add(%[[V5]], %[[V8]], %[[V4]])
# CHECK-NEXT: return (%[[V10]])
def number_to_tensor(x: torch.Tensor, n: int) -> torch.Tensor:
    return torch.add(x, n) + torch.pow(2, x)


# CHECK-LABEL: # tensor_to_number{{$}}
# CHECK-NEXT: graph(%t.1 : Tensor,
# CHECK-NEXT: %xs.1 : int[]):
# CHECK: %[[V4:[0-9]+]] : int = aten::IntImplicit(%t.1)
# CHECK-NEXT: %[[V5:[0-9]+]] : int = aten::__getitem__(%xs.1, %[[V4]])
# CHECK-NEXT: %[[V8:[0-9]+]] : int = aten::Int(%t.1)
# CHECK-NEXT: %[[V9:[0-9]+]] : int = aten::add(%[[V5]], %[[V8]])
# CHECK-NEXT: return (%[[V9]])
def tensor_to_number(t: torch.Tensor, xs: List[int]) -> int:
    return xs[t] + int(t)


# CHECK-LABEL: # to_int_list{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor,
# CHECK-NEXT: %a.1 : int,
# CHECK-NEXT: %b.1 : int):
# CHECK-DAG: %[[V7:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V18:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V19:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK: %[[V6:[0-9]+]] : int[] = prim::ListConstruct(%a.1, %b.1)
# CHECK-NEXT: %[[V11:[0-9]+]] : Tensor = aten::zeros(%[[V6]], %[[V7]], %[[V7]], %[[V7]], %[[V7]])
# CHECK-NEXT: %[[V15:[0-9]+]] : int[] = prim::ListConstruct(%a.1, %b.1)
# CHECK-NEXT: %[[V16:[0-9]+]] : Tensor = aten::view(%x.1, %[[V15]])
# CHECK-NEXT: %[[V20:[0-9]+]] : int[] = prim::ListConstruct(%[[V18]], %[[V19]])
# CHECK-NEXT: %[[V21:[0-9]+]] : Tensor = aten::permute(%x.1, %[[V20]])
# CHECK-NEXT: %[[V22:[0-9]+]] : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%[[V11]], %[[V16]], %[[V21]])
# CHECK-NEXT: return (%[[V22]])
def to_int_list(x: torch.Tensor, a: int, b: int) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return torch.zeros((a, b)), x.view(a, b), x.permute([1, 0])


# CHECK-LABEL: # broadcasting_list{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor):
# CHECK-DAG: %[[V7:[0-9]+]] : bool = prim::Constant[value=0]()
# CHECK-DAG: %[[V6:[0-9]+]] : int[] = prim::Constant[value=[1, 1]]()
# CHECK-DAG: %[[V5:[0-9]+]] : int[] = prim::Constant[value=[0, 0]]()
# CHECK-DAG: %[[V4:[0-9]+]] : int[] = prim::Constant[value=annotate(List[int], [])]()
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[V3:[0-9]+]] : int[] = prim::ListConstruct(%[[V2]], %[[V2]])
# CHECK-NEXT: %[[V8:[0-9]+]] : Tensor = aten::max_pool2d(%x.1, %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]])
# CHECK-NEXT: return (%[[V8]])
def broadcasting_list(x: torch.Tensor) -> torch.Tensor:
    return torch.max_pool2d(x, 2)


# CHECK-LABEL: # keywords{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor):
# CHECK-DAG: %[[V5:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V3:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V9:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[V4:[0-9]+]] : int[] = prim::ListConstruct(%[[V2]])
# CHECK-NEXT: %[[V6:[0-9]+]] : Tensor = aten::sum(%x.1, %[[V4]], %[[V3]], %[[V5]])
# CHECK-NEXT: %[[V10:[0-9]+]] : Tensor = aten::add(%x.1, %x.1, %[[V9]])
# CHECK-NEXT: %[[V11:[0-9]+]] : (Tensor, Tensor) = prim::TupleConstruct(%[[V6]], %[[V10]])
# CHECK-NEXT: return (%[[V11]])
def keywords(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    return torch.sum(x, dim=1, keepdim=True), torch.add(x, x, alpha=2)


# CHECK-LABEL: # scalar_overloads{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor,
# CHECK-NEXT: %y.1 : Tensor,
# CHECK-NEXT: %a.1 : int,
# CHECK-NEXT: %f.1 : float):
# CHECK-DAG: %[[V6:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V7:[0-9]+]] : Tensor = aten::add(%x.1, %y.1, %[[V6]])
# CHECK-NEXT: %[[V11:[0-9]+]] : Tensor = aten::add(%x.1, %f.1, %[[V6]])
# CHECK-NEXT: %[[V14:[0-9]+]] : float = aten::add(%a.1, %f.1)
# CHECK-NEXT: %[[V17:[0-9]+]] : int = aten::add(%a.1, %a.1)
# CHECK-NEXT: %[[V18:[0-9]+]] : (Tensor, Tensor, float, int) = prim::TupleConstruct(%[[V7]], %[[V11]], %[[V14]], %[[V17]])
# CHECK-NEXT: return (%[[V18]])
def scalar_overloads(x: torch.Tensor, y: torch.Tensor, a: int, f: float) -> Tuple[torch.Tensor, torch.Tensor, float, int]:
    return x + y, x + f, a + f, a + a
