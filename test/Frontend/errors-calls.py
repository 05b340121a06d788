# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of calls and SugaredValues: attributes of torch and math, Python builtins TorchScript
# has no meaning for, hasattr/getattr/isinstance, enumerate/zip/range/slice argument counts,
# tolist, list(), print, tensor casts, calling and subscripting plain values, conditions.
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py); differences are noted.
import torch

def f(x: int) -> int:
    # PyTorch says "object has no attribute no_such_fn".
    # expected-error @+1 {{Module 'torch' has no attribute 'no_such_fn'}}
    return torch.no_such_fn(x)

# -----
import torch
import math

def f(x: float) -> float:
    # PyTorch says "object has no attribute nope".
    # expected-error @+1 {{Module 'math' has no attribute 'nope'}}
    return math.nope(x)

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Python builtin <built-in function globals> is currently not supported in Torchscript}}
    g = globals()
    return x

# -----
import torch

def f(x: torch.Tensor) -> bool:
    # expected-error @+1 {{hasattr's first argument must be an object or NamedTuple, got Tensor instead}}
    return hasattr(x, "shape")

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(n: str) -> bool:
    # expected-error @+1 {{hasattr's second argument must be a string literal}}
    return hasattr(A(), n)

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(n: str) -> int:
    # expected-error @+1 {{getattr's second argument must be a string literal}}
    return getattr(A(), n)

# -----
import torch

def f(x: torch.Tensor) -> int:
    # expected-error @+1 {{enumerate expected at least 1 arguments, got 0}}
    for i in enumerate():
        pass
    return 0

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{enumerate expected at most 2 arguments, got 3}}
    for i, x in enumerate(xs, 1, 2):
        pass
    return 0

# -----
import torch

def f(x: torch.Tensor) -> int:
    # expected-error @+1 {{zip expected at least 1 arguments, got 0}}
    for i in zip():
        pass
    return 0

# -----
import torch

def f(x: float) -> int:
    s = 0
    # expected-error @+1 {{all inputs of range must be ints, found float in argument 0}}
    for i in range(x):
        s += i
    return s

# -----
import torch

def f(x: int) -> int:
    s = 0
    # expected-error @+1 {{range expected at least 1 arguments, got 0}}
    for i in range():
        s += i
    return s

# -----
import torch

def f(x: int) -> int:
    s = 0
    # expected-error @+1 {{range expected at most 3 arguments, got 4}}
    for i in range(x, x, x, x):
        s += i
    return s

# -----
import torch
from typing import List

def f(x: torch.Tensor) -> int:
    # expected-error @+1 {{Expected type hint for result of tolist()}}
    y = x.tolist()
    return 0

# -----
import torch
from typing import List

def f(x: torch.Tensor) -> int:
    y: List[int] = torch.jit.annotate(List[int], x.tolist())
    # expected-error @+1 {{Expected list type annotation for list(), found int}}
    z = torch.jit.annotate(int, list())
    return 0

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{print doesn't accept any keyword arguments}}
    print(x, sep=",")
    return x

# -----
import torch

def f(x: torch.Tensor) -> torch.Tensor:
    # PyTorch fails an internal assert here (sugared_value.h: args.empty() && kwargs.empty()).
    # expected-error @+1 {{Expected no positional arguments for a tensor cast}}
    return x.float(1)

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{cannot call a value of type 'int'}}
    return x(1)

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{'int' object is not subscriptable}}
    return x[0]

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{slice accepts exactly 1, 2 or 3 arguments, got: 4}}
    s = slice(1, 2, 3, 4)
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{isinstance expected exactly 2 arguments but found 1}}
    return int(isinstance(x))

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{isinstance takes no keyword arguments}}
    return int(isinstance(x, int, y=1))

# -----
import torch
from typing import Tuple

def f(x: Tuple[int, int]) -> int:
    # expected-error @+1 {{Could not cast value of type Tuple[int, int] to bool}}
    if x:
        return 1
    return 0

# -----
import torch
class A(object):
    def __init__(self):
        self.x = 1

    def __bool__(self) -> int:
        return self.x

def f(x: int) -> int:
    # expected-error @+1 {{expected a bool expression for condition but found int}}
    while A():
        return 1
    return 0

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{'int' object has no attribute or method 'nope'.}}
    return x.nope

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{Python builtin <built-in function iter> is currently not supported in Torchscript}}
    it = iter(xs)
    return 0

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Python builtin <built-in function callable> is currently not supported in Torchscript}}
    return int(callable(x))
