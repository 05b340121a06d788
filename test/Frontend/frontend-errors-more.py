# RUN: ember-opt %s --split-input-file --verify-diagnostics
# More frontend errors at the range they are about: imports outside torch/math/typing,
# unsupported syntax, calls of @torch.jit.ignore'd functions (they run in Python, which Ember
# does not have), Optional values used before refinement, bad annotations.
# expected-error @+1 {{import of module 'numpy' is not supported in TorchScript}}
import numpy as np

def f(x: int) -> int:
    return x

# -----
# expected-error @+1 {{import of module 'os' is not supported in TorchScript}}
from os import path

def f(x: int) -> int:
    return x

# -----
import torch

@torch.jit.ignore
def python_side(x: int) -> int:
    return x

def f(x: int) -> int:
    # expected-error @+1 {{function 'python_side' is decorated @torch.jit.ignore}}
    return python_side(x)

# -----
import torch

def f(x: int) -> int:
    while x > 0:
        # expected-error @+1 {{Yield aren't supported}}
        yield x
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{function definitions aren't supported}}
    def inner(y: int) -> int:
        return y
    return inner(x)

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{if-expression's true branch has type int but false branch has type str}}
    return x if x else "a"

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    s = 0
    # expected-error @+1 {{Expected a value of type 'Tensor' for argument '0' but instead found type 'List[int]'.}}
    for v in reversed(xs):
        s += v
    return s

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{expected an expression of type int but found str}}
    return torch.jit.annotate(int, "a")

# -----
import torch
from typing import Optional

def f(x: Optional[int]) -> int:
    # expected-error @+1 {{Expected a value of type 'Tensor' for argument 'self' but instead found type 'Optional[int]'.}}
    return x + 1

# -----
import torch

# expected-error @+1 {{duplicate argument 'x' in function definition}}
def f(x: int, x: int) -> int:
    return x

# -----
import torch

def f(x: int) -> int:
    y = [i for i in range(3)]
    # expected-error @+1 {{'List[int]' object has no attribute or method 'nope'.}}
    return y.nope

# -----
import torch
from typing import Final

LIMIT: Final[int] = 4

def f(x: int) -> int:
    # expected-error @+1 {{python value of type 'int' cannot be used as a value}}
    return min(x, LIMIT)
