# RUN: ember-opt %s --dce | FileCheck %s
# Keyword arguments among a class's bases (`metaclass=...`) are ignored, as PyTorch reads only
# the bases. The CHECK lines are PyTorch's graph (tools/gen/torch_graphs.py --filecheck).
import torch


class Counter(object, metaclass=type):
    def __init__(self, n: int):
        self.n = n


# CHECK-LABEL: # class_keyword_bases{{$}}
# CHECK-NEXT: graph(%n.1 : int):
# CHECK: %[[V2:[0-9]+]] : __torch__.Counter = prim::CreateObject()
# CHECK-NEXT: %[[V3:[0-9]+]] : NoneType = prim::CallMethod[name="__init__"](%[[V2]], %n.1)
# CHECK-NEXT: %[[Vn:n(\.[0-9]+)?]] : int = prim::GetAttr[name="n"](%[[V2]])
# CHECK-NEXT: return (%[[Vn]])

def class_keyword_bases(n: int) -> int:
    return Counter(n).n
