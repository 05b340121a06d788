# RUN: not ember-opt %s --split-input-file 2>&1 | FileCheck %s
# Frontend errors as the user sees them: `file:line:col: error: message` (PyTorch's wording),
# the source line, and the highlighted range with `<--- HERE`; ember-opt exits with 1.
import os

# CHECK: frontend-errors-render.py:[[# @LINE - 2]]:1: error: import of module 'os' is not supported in TorchScript
# CHECK-NEXT: import os
# CHECK-NEXT: ~~~~~~~~~ <--- HERE
def f(x: int) -> int:
    return x

# -----
import torch

# A failed overload resolution lists every candidate with why it does not match.
# CHECK: frontend-errors-render.py:[[# @LINE + 7]]:12: error: Arguments for call are not valid.
# CHECK-NEXT: The following variants are available:
# CHECK: aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor:
# CHECK-NEXT: Expected a value of type 'Tensor' for argument 'other' but instead found type 'str'.
# CHECK: aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor:
# CHECK-NEXT: Expected a value of type 'number' for argument 'other' but instead found type 'str'.
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.add(x, "a")
# CHECK: The original call is
# CHECK-NEXT: return torch.add(x, "a")
# CHECK-NEXT: ~~~~~~~~~ <--- HERE

# -----
import torch

def g(a: int, b: int) -> int:
    return a + b

# CHECK: frontend-errors-render.py:[[# @LINE + 6]]:12: error:
# CHECK-NEXT: g(int a, int b) -> int:
# CHECK-NEXT: Argument b not provided.
# CHECK: return g(x)
# CHECK-NEXT: ~ <--- HERE
def f(x: int) -> int:
    return g(x)

# -----
import torch

def g(a: int) -> int:
    return a

# CHECK: frontend-errors-render.py:[[# @LINE + 5]]:12: error:
# CHECK-NEXT: g(int a) -> int:
# CHECK-NEXT: Expected at most 1 arguments but found 3 positional arguments.
# CHECK: ~ <--- HERE
def f(x: int) -> int:
    return g(x, 1, 2)

# -----
import torch

# CHECK: frontend-errors-render.py:[[# @LINE + 4]]:12: error: undefined value undefined_thing
# CHECK-NEXT: return undefined_thing(x)
# CHECK-NEXT: ~~~~~~~~~~~~~~~ <--- HERE
def f(x: int) -> int:
    return undefined_thing(x)

# -----
import torch

# CHECK: frontend-errors-render.py:[[# @LINE + 4]]:5: error: try blocks aren't supported
# CHECK-NEXT: try:
# CHECK-NEXT: ~~~ <--- HERE
def f(x: int) -> int:
    try:
        x = 1
    except Exception:
        x = 2
    return x
