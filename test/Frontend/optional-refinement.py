# RUN: ember-opt %s --dce | FileCheck %s
# RUN: ember-run %s none 2 | FileCheck %s --check-prefix=OUT
# Optional refinement: `is None`, `is not None` and isinstance refine a value to its contained
# type (prim::unchecked_cast) in the branch where that is known, also after an early return
# or raise, and through `and`. The CHECK lines are PyTorch's graphs
# (tools/gen/torch_graphs.py --filecheck).
# OUT: 2
import torch
from typing import Optional


# CHECK-LABEL: # is_none{{$}}
# CHECK-NEXT: graph(%x.1 : int?):
# CHECK-DAG: %[[V2:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V4:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK-DAG: %[[V13:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V3:[0-9]+]] : bool = aten::__is__(%x.1, %[[V2]])
# CHECK-NEXT: %[[V33:[0-9]+]] : int = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V4]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vx_7:x(\.[0-9]+)?]] : int = prim::unchecked_cast(%x.1)
# CHECK-NEXT: %[[V31:[0-9]+]] : int = aten::add(%[[Vx_7]], %[[V13]])
# CHECK-NEXT: -> (%[[V31]])
# CHECK-NEXT: return (%[[V33]])
def is_none(x: Optional[int]) -> int:
    if x is None:
        return 0
    return x + 1


# CHECK-LABEL: # is_not_none{{$}}
# CHECK-NEXT: graph(%x.1 : int?):
# CHECK-DAG: %[[V3:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[Vy_1:y(\.[0-9]+)?]] : int = prim::Constant[value=0]()
# CHECK: %[[V4:[0-9]+]] : bool = aten::__isnot__(%x.1, %[[V3]])
# CHECK-NEXT: %[[Vy:y(\.[0-9]+)?]] : int = prim::If(%[[V4]])
# CHECK-NEXT: block0():
# CHECK-NEXT: %[[Vx_7:x(\.[0-9]+)?]] : int = prim::unchecked_cast(%x.1)
# CHECK-NEXT: -> (%[[Vx_7]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[Vy_1]])
# CHECK-NEXT: return (%[[Vy]])
def is_not_none(x: Optional[int]) -> int:
    y = 0
    if x is not None:
        y = x
    return y


# CHECK-LABEL: # by_isinstance{{$}}
# CHECK-NEXT: graph(%x.1 : Tensor?):
# CHECK-DAG: %[[V42:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V7:[0-9]+]] : int = prim::Constant[value=1]()
# CHECK: %[[V2:[0-9]+]] : bool = prim::isinstance[types=[Tensor]](%x.1)
# CHECK-NEXT: %[[V48:[0-9]+]] : Tensor = prim::If(%[[V2]])
# CHECK-NEXT: block0():
# CHECK-NEXT: %[[Vx_7:x(\.[0-9]+)?]] : Tensor = prim::unchecked_cast(%x.1)
# CHECK-NEXT: %[[V9:[0-9]+]] : Tensor = aten::add(%[[Vx_7]], %[[V7]], %[[V7]])
# CHECK-NEXT: -> (%[[V9]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[V41:[0-9]+]] : int[] = prim::ListConstruct(%[[V7]])
# CHECK-NEXT: %[[V46:[0-9]+]] : Tensor = aten::zeros(%[[V41]], %[[V42]], %[[V42]], %[[V42]], %[[V42]])
# CHECK-NEXT: -> (%[[V46]])
# CHECK-NEXT: return (%[[V48]])
def by_isinstance(x: Optional[torch.Tensor]) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x + 1
    return torch.zeros(1)


# CHECK-LABEL: # after_raise{{$}}
# CHECK-NEXT: graph(%x.1 : int?):
# CHECK-DAG: %[[V5:[0-9]+]] : str = prim::Constant[value="builtins.RuntimeError"]()
# CHECK-DAG: %[[V4:[0-9]+]] : str = prim::Constant[value="none"]()
# CHECK-DAG: %[[V2:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V15:[0-9]+]] : int = prim::Constant[value=2]()
# CHECK-DAG: %[[V25:[0-9]+]] : int = prim::Uninitialized()
# CHECK: %[[V3:[0-9]+]] : bool = aten::__is__(%x.1, %[[V2]])
# CHECK-NEXT: %[[Vx:x(\.[0-9]+)?]] : int = prim::If(%[[V3]])
# CHECK-NEXT: block0():
# CHECK-NEXT: = prim::RaiseException(%[[V4]], %[[V5]])
# CHECK-NEXT: -> (%[[V25]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vx_7:x(\.[0-9]+)?]] : int = prim::unchecked_cast(%x.1)
# CHECK-NEXT: -> (%[[Vx_7]])
# CHECK-NEXT: %[[V16:[0-9]+]] : int = aten::mul(%[[Vx]], %[[V15]])
# CHECK-NEXT: return (%[[V16]])
def after_raise(x: Optional[int]) -> int:
    if x is None:
        raise RuntimeError("none")
    return x * 2


# CHECK-LABEL: # through_and{{$}}
# CHECK-NEXT: graph(%x.1 : int?,
# CHECK-NEXT: %y.1 : int?):
# CHECK-DAG: %[[V11:[0-9]+]] : bool = prim::Constant[value=0]()
# CHECK-DAG: %[[V3:[0-9]+]] : NoneType = prim::Constant()
# CHECK-DAG: %[[V36:[0-9]+]] : int = prim::Constant[value=0]()
# CHECK: %[[V4:[0-9]+]] : bool = aten::__isnot__(%x.1, %[[V3]])
# CHECK-NEXT: %[[V12:[0-9]+]] : bool, %[[Vx_41:x(\.[0-9]+)?]] : int? = prim::If(%[[V4]])
# CHECK-NEXT: block0():
# CHECK-NEXT: %[[Vx_7:x(\.[0-9]+)?]] : int = prim::unchecked_cast(%x.1)
# CHECK-NEXT: %[[V10:[0-9]+]] : bool = aten::__isnot__(%y.1, %[[V3]])
# CHECK-NEXT: -> (%[[V10]], %[[Vx_7]])
# CHECK-NEXT: block1():
# CHECK-NEXT: -> (%[[V11]], %x.1)
# CHECK-NEXT: %[[V102:[0-9]+]] : int = prim::If(%[[V12]])
# CHECK-NEXT: block0():
# CHECK-NEXT: %[[Vx_13:x(\.[0-9]+)?]] : int = prim::unchecked_cast(%[[Vx_41]])
# CHECK-NEXT: %[[Vy_7:y(\.[0-9]+)?]] : int = prim::unchecked_cast(%y.1)
# CHECK-NEXT: %[[V21:[0-9]+]] : int = aten::add(%[[Vx_13]], %[[Vy_7]])
# CHECK-NEXT: -> (%[[V21]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[V88:[0-9]+]] : bool = aten::__is__(%[[Vx_41]], %[[V3]])
# CHECK-NEXT: %[[V104:[0-9]+]] : int = prim::If(%[[V88]])
# CHECK-NEXT: block0():
# CHECK-NEXT: %[[V94:[0-9]+]] : bool = aten::__is__(%y.1, %[[V3]])
# CHECK-NEXT: %[[V95:[0-9]+]] : int = prim::If(%[[V94]])
# CHECK-NEXT: block0():
# CHECK-NEXT: -> (%[[V36]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vy_37:y(\.[0-9]+)?]] : int = prim::unchecked_cast(%y.1)
# CHECK-NEXT: -> (%[[Vy_37]])
# CHECK-NEXT: -> (%[[V95]])
# CHECK-NEXT: block1():
# CHECK-NEXT: %[[Vx_47:x(\.[0-9]+)?]] : int = prim::unchecked_cast(%[[Vx_41]])
# CHECK-NEXT: -> (%[[Vx_47]])
# CHECK-NEXT: -> (%[[V104]])
# CHECK-NEXT: return (%[[V102]])
def through_and(x: Optional[int], y: Optional[int]) -> int:
    if x is not None and y is not None:
        return x + y
    if x is None:
        return 0 if y is None else y
    return x
