# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of assignment statements: an annotation without a value, a starred target that is
# no variable, an augmented assignment to a list element with more than one index.
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py).
import torch

def f(x: int) -> int:
    # expected-error @+1 {{annotated assignments without assigned value aren't supported}}
    y: int
    return x

# -----
import torch
from typing import List

def f(x: List[int]) -> int:
    # expected-error @+1 {{Cannot pack a tuple into a non-variable}}
    a, *b.c = (1, 2, 3)
    return a

# -----
import torch
from typing import List

def f(x: List[int]) -> int:
    # expected-error @+1 {{Sliced expression not yet supported for List[int] augmented assignment. File a bug if you want this}}
    x[0, 1] += 1
    return 1

# -----
import torch

# Every augmented operator PyTorch knows on a tensor compiles.
def f(x: torch.Tensor) -> torch.Tensor:
    x <<= 1
    x >>= 1
    x ^= 1
    x |= 1
    x &= 1
    x %= 2
    x **= 2
    return x
