# RUN: ember-opt %s --dce | FileCheck %s
# Lists, tuples, dicts, subscripts, slices and unpacking, typed as PyTorch types them.
import torch
from typing import Dict, List, Tuple


# An empty list is a List[Tensor] unless annotated; `+=` on a list extends it in place.
# CHECK-LABEL: # lists
# CHECK: %[[E:.*]] : Tensor[] = prim::ListConstruct()
# CHECK: %[[L:.*]] : int[] = prim::ListConstruct()
# CHECK: aten::add_(%[[L]],
# CHECK: prim::TupleConstruct(%[[E]], %{{.*}})
def lists(xs: List[int]) -> Tuple[List[torch.Tensor], List[int]]:
    empty = []
    ints: List[int] = []
    ints += xs
    return empty, ints


# Tuple unpacking, starred unpacking and constant tuple indexing.
# CHECK-LABEL: # tuples
# CHECK: %[[A:.*]] : int, %[[B:.*]] : int, %[[C:.*]] : int = prim::TupleUnpack(%t.1)
# CHECK: prim::TupleIndex(%t.1,
# CHECK: prim::TupleConstruct(%[[B]], %[[C]])
def tuples(t: Tuple[int, int, int]) -> Tuple[int, Tuple[int, int]]:
    a, *rest = t
    return a + t[1], (rest[0], rest[1])


# Tensor indexing: ints select, slices slice, None unsqueezes, tensors index.
# CHECK-LABEL: # indexing
# CHECK: aten::select(%x.1,
# CHECK: aten::slice(
# CHECK: aten::unsqueeze(
# CHECK: aten::index(%x.1,
def indexing(x: torch.Tensor, i: torch.Tensor):
    return x[0], x[1:3], x[None], x[i]


# Assigning into a tensor copies into the indexed view; into a list or dict, `_set_item`.
# CHECK-LABEL: # stores
# CHECK: aten::copy_
# CHECK: aten::_set_item(%xs.1,
# CHECK: aten::_set_item(%d.1,
def stores(x: torch.Tensor, xs: List[int], d: Dict[str, int]):
    x[0] = 1.0
    xs[0] = 2
    d["a"] = 3
    return x, xs, d
