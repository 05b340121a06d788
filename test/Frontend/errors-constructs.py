# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Error cases of constructs whose other errors live elsewhere: torch.jit.annotate against its
# value, a NamedTuple constructed with too many fields, an Optional refined on one path only,
# string formatting results used as numbers. Checked with tools/gen/torch_graphs.py.
import torch
from typing import List

def f(x: int) -> List[int]:
    # expected-error @+1 {{List type annotation `List[int]` did not match the types of the given list elements, which were unified to float}}
    return torch.jit.annotate(List[int], [1.0])

# -----
import torch
from typing import NamedTuple

class P(NamedTuple):
    x: int

def f(x: int) -> int:
    # PyTorch names the schema `P(int x) -> ()`; Ember `__torch__.P(int x) -> __torch__.P`.
    # expected-error @+1 {{Expected at most 1 arguments but found 2 positional arguments.}}
    p = P(1, 2)
    return p.x

# -----
import torch
from typing import Optional

def f(x: Optional[int], c: bool) -> int:
    if c:
        if x is None:
            return 0
    # Refined to int only where c holds: here x is still Optional[int].
    # expected-error @+1 {{Expected a value of type 'Tensor' for argument 'self' but instead found type 'Optional[int]'.}}
    return x + 1

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Expected a value of type 'Tensor' for argument 'self' but instead found type 'str'.}}
    return f"{x}" + 1
