# RUN: ember-opt %s --dce | FileCheck %s
# hasattr on a NamedTuple is known at compile time from its fields, as in PyTorch; hasattr's
# errors are in errors-calls.py. The CHECK lines are PyTorch's graph (tools/gen/torch_graphs.py
# --filecheck).
import torch
from typing import NamedTuple


class Point(NamedTuple):
    x: int
    y: float


# CHECK-LABEL: # namedtuple_hasattr{{$}}
# CHECK-NEXT: graph(%p.1 : NamedTuple(x : int, y : float)):
# CHECK-DAG: %[[V16:[0-9]+]] : bool = prim::Constant[value=1]()
# CHECK: return (%[[V16]])
def namedtuple_hasattr(p: Point) -> bool:
    return hasattr(p, "x") and not hasattr(p, "z")
