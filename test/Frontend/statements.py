# RUN: ember-opt %s --dce | FileCheck %s
# Statements as PyTorch emits them: with (prim::Enter/prim::Exit), raise and assert
# (prim::RaiseException with the exception's qualified name), list and dict comprehensions
# (a prim::Loop appending or setting items), tuple and starred unpacking, augmented assignment
# (in place for tensors and lists, a new value for numbers), string formatting and
# torch.jit.annotate. The CHECK lines are PyTorch's graphs
# (tools/gen/torch_graphs.py --filecheck).
import torch
from typing import Any, Dict, List, Tuple


class Guard:
    def __init__(self):
        self.count = 0

    def __enter__(self) -> int:
        self.count += 1
        return self.count

    def __exit__(self, a: Any, b: Any, c: Any) -> None:
        self.count -= 1


# CHECK-LABEL: # with_stmt{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK: %[[Vg_1:g(\.[0-9]+)?]] : __torch__.Guard = prim::CreateObject()
# CHECK-NEXT: %[[V2:[0-9]+]] : NoneType = prim::CallMethod[name="__init__"](%[[Vg_1]])
# CHECK-NEXT: %[[Vn_1:n(\.[0-9]+)?]] : int = prim::Enter(%[[Vg_1]])
# CHECK-NEXT: %[[Vx_5:x(\.[0-9]+)?]] : int = aten::add(%x.1, %[[Vn_1]])
# CHECK-NEXT: %[[V8:[0-9]+]] : Tensor = prim::Exit(%[[Vg_1]])
# CHECK-NEXT: return (%[[Vx_5]])
def with_stmt(x: int) -> int:
    g = Guard()
    with g as n:
        x = x + n
    return x


# CHECK-LABEL: # raise_assert{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK-DAG: %[[V24:[0-9]+]] : str = prim::Constant[value="builtins.ValueError"]()
# CHECK-DAG: %[[V23:[0-9]+]] : str = prim::Constant[value="too big"]()
# CHECK-DAG: %[[V37:[0-9]+]] : str = prim::Constant[value="AssertionError: "]()
# CHECK-DAG: %[[V8:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V36:[0-9]+]] : str = prim::Constant[value="AssertionError: negative"]()
# CHECK-DAG: %[[V2:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V11:[0-9]+]] : int = prim::Constant[value=3]()
# CHECK-DAG: %[[V20:[0-9]+]] : int = prim::Constant[value=10]()
# CHECK: %[[V3:[0-9]+]] : bool = aten::ge(%x.1, %[[V2]])
# CHECK-NEXT: = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> ()
# CHECK-NEXT: block1():
# CHECK-NEXT: = prim::RaiseException(%[[V36]], %[[V8]])
# CHECK-NEXT: -> ()
# CHECK-NEXT: %[[V12:[0-9]+]] : bool = aten::ne(%x.1, %[[V11]])
# CHECK-NEXT: = prim::If(%[[V12]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> ()
# CHECK-NEXT: block1():
# CHECK-NEXT: = prim::RaiseException(%[[V37]], %[[V8]])
# CHECK-NEXT: -> ()
# CHECK-NEXT: %[[V21:[0-9]+]] : bool = aten::gt(%x.1, %[[V20]])
# CHECK-NEXT: = prim::If(%[[V21]])
# CHECK-NEXT: block0():
# CHECK-NEXT: = prim::RaiseException(%[[V23]], %[[V24]])
# CHECK-NEXT: -> ()
# CHECK-NEXT: block1():
# CHECK-NEXT: -> ()
# CHECK-NEXT: return (%x.1)
def raise_assert(x: int) -> int:
    assert x >= 0, "negative"
    assert x != 3
    if x > 10:
        raise ValueError("too big")
    return x


# CHECK-LABEL: # comprehensions{{$}}
# CHECK-NEXT: graph(%xs.1 : int[]):
# CHECK-DAG: %[[V4:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK-DAG: %[[V8:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK-DAG: %[[V19:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V1:[0-9]+]] : int[] = prim::ListConstruct()
# CHECK-NEXT: %[[V3:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: = prim::Loop(%[[V3]], %[[V4]])
# CHECK-NEXT: block0(%[[V5:[0-9]+]] : int):
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V5]])
# CHECK-NEXT: %[[V9:[0-9]+]] : int = aten::mul(%[[Vx_1]], %[[V8]])
# CHECK-NEXT: %[[V10:[0-9]+]] : int[] = aten::append(%[[V1]], %[[V9]])
# CHECK-NEXT: -> (%[[V4]])
# CHECK-NEXT: %[[V11:[0-9]+]] : Dict(int, int) = prim::DictConstruct()
# CHECK-NEXT: %[[V13:[0-9]+]] : int = aten::len(%xs.1)
# CHECK-NEXT: = prim::Loop(%[[V13]], %[[V4]])
# CHECK-NEXT: block0(%[[V15:[0-9]+]] : int):
# CHECK-NEXT: %[[Vx_5:x(\.[0-9]+)?]] : int = aten::__getitem__(%xs.1, %[[V15]])
# CHECK-NEXT: %[[V20:[0-9]+]] : int = aten::add(%[[Vx_5]], %[[V19]])
# CHECK-NEXT: = aten::_set_item(%[[V11]], %[[Vx_5]], %[[V20]])
# CHECK-NEXT: -> (%[[V4]])
# CHECK-NEXT: %[[V22:[0-9]+]] : (int[], Dict(int, int)) = prim::TupleConstruct(%[[V1]], %[[V11]])
# CHECK-NEXT: return (%[[V22]])
def comprehensions(xs: List[int]) -> Tuple[List[int], Dict[int, int]]:
    return [x * 2 for x in xs], {x: x + 1 for x in xs}


# CHECK-LABEL: # unpacking{{$}}
# CHECK-NEXT: graph(%t.1 : (int, int, int)):
# CHECK-DAG: %[[Vb_1:b(\.[0-9]+)?]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[Vc_1:c(\.[0-9]+)?]] : int = prim::Constant[value=2]()
# CHECK-DAG: %[[Vd_1:d(\.[0-9]+)?]] : int = prim::Constant[value=3]()
# CHECK: %[[Va_1:a(\.[0-9]+)?]] : int, %[[V3:[0-9]+]] : int, %[[V4:[0-9]+]] : int = prim::TupleUnpack(%t.1)
# CHECK-NEXT: %[[Vx_1:x(\.[0-9]+)?]] : int, %[[Vy_1:y(\.[0-9]+)?]] : int, %[[Vz_1:z(\.[0-9]+)?]] : int = prim::TupleUnpack(%t.1)
# CHECK-NEXT: %[[V19:[0-9]+]] : int[] = prim::ListConstruct(%[[V3]], %[[V4]])
# CHECK-NEXT: %[[V20:[0-9]+]] : int = aten::len(%[[V19]])
# CHECK-NEXT: %[[V21:[0-9]+]] : int = aten::add(%[[Va_1]], %[[V20]])
# CHECK-NEXT: %[[V23:[0-9]+]] : int = aten::add(%[[V21]], %[[Vb_1]])
# CHECK-NEXT: %[[V25:[0-9]+]] : int = aten::add(%[[V23]], %[[Vc_1]])
# CHECK-NEXT: %[[V27:[0-9]+]] : int = aten::add(%[[V25]], %[[Vd_1]])
# CHECK-NEXT: %[[V29:[0-9]+]] : int = aten::add(%[[V27]], %[[Vx_1]])
# CHECK-NEXT: %[[V31:[0-9]+]] : int = aten::add(%[[V29]], %[[Vy_1]])
# CHECK-NEXT: %[[V33:[0-9]+]] : int = aten::add(%[[V31]], %[[Vz_1]])
# CHECK-NEXT: return (%[[V33]])
def unpacking(t: Tuple[int, int, int]) -> int:
    a, *rest = t
    b, (c, d) = 1, (2, 3)
    x, y, z = t
    return a + len(rest) + b + c + d + x + y + z


# CHECK-LABEL: # augmented{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor,
# CHECK-NEXT: %xs.1 : int[],
# CHECK-NEXT: %n.1 : int):
# CHECK-DAG: %[[V4:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK-DAG: %[[V8:[0-9]+]] : int = prim::Constant[value=4]()
# CHECK-DAG: %[[V12:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK: %[[Vx_5:x(\.[0-9]+)?]] : Tensor = aten::add_(%x.1, %[[V4]], %[[V4]])
# CHECK-NEXT: %[[V9:[0-9]+]] : int[] = prim::ListConstruct(%[[V8]])
# CHECK-NEXT: %[[Vxs_5:xs(\.[0-9]+)?]] : int[] = aten::add_(%xs.1, %[[V9]])
# CHECK-NEXT: %[[Vx_9:x(\.[0-9]+)?]] : Tensor = aten::mul_(%[[Vx_5]], %[[V12]])
# CHECK-NEXT: %[[Vn_5:n(\.[0-9]+)?]] : int = aten::sub(%n.1, %[[V4]])
# CHECK-NEXT: %[[V19:[0-9]+]] : (Tensor, int[], int) = prim::TupleConstruct(%[[Vx_9]], %[[Vxs_5]], %[[Vn_5]])
# CHECK-NEXT: return (%[[V19]])
def augmented(x: torch.Tensor, xs: List[int], n: int) -> Tuple[torch.Tensor, List[int], int]:
    x += 1
    xs += [4]
    x *= 2
    n -= 1
    return x, xs, n


# CHECK-LABEL: # formatting{{$}}
# CHECK-NEXT: graph(%n.1 : int,
# CHECK-NEXT: %f.1 : float):
# CHECK-DAG: %[[V11:[0-9]+]] : str = prim::Constant[value="%[[Vd:d(\.[0-9]+)?]]"]()
# CHECK-DAG: %[[V6:[0-9]+]] : str = prim::Constant[value="{}!"]()
# CHECK-DAG: %[[V2:[0-9]+]] : str = prim::Constant[value="{} and {}"]()
# CHECK: %[[V5:[0-9]+]] : str = aten::format(%[[V2]], %n.1, %f.1)
# CHECK-NEXT: %[[V8:[0-9]+]] : str = aten::format(%[[V6]], %n.1)
# CHECK-NEXT: %[[V9:[0-9]+]] : str = aten::add(%[[V5]], %[[V8]])
# CHECK-NEXT: %[[V13:[0-9]+]] : str = aten::percentFormat(%[[V11]], %n.1)
# CHECK-NEXT: %[[V14:[0-9]+]] : str = aten::add(%[[V9]], %[[V13]])
# CHECK-NEXT: return (%[[V14]])
def formatting(n: int, f: float) -> str:
    return "{} and {}".format(n, f) + f"{n}!" + "%d" % n


# CHECK-LABEL: # annotate{{$}}
# CHECK-NEXT: graph(%x.1 : int):
# CHECK-DAG: %[[V6:[0-9]+]] : str = prim::Constant[value="k"]()
# CHECK-DAG: %[[V3:[0-9]+]] : int = prim::Constant[value=4]()
# CHECK: %[[Vd_1:d(\.[0-9]+)?]] : Dict(str, int) = prim::DictConstruct()
# CHECK-NEXT: %[[V4:[0-9]+]] : int = aten::add(%x.1, %[[V3]])
# CHECK-NEXT: = aten::_set_item(%[[Vd_1]], %[[V6]], %[[V4]])
# CHECK-NEXT: return (%[[Vd_1]])
def annotate(x: int) -> Dict[str, int]:
    d = torch.jit.annotate(Dict[str, int], {})
    d["k"] = x + 4
    return d
