# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of the IR emitter, worded as PyTorch words them, at the range they are about.
import torch

def f(x: int) -> int:
    # expected-error @+1 {{undefined value y}}
    return x + y

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Expected a value of type 'int' for argument 'x' but instead found type 'str'}}
    return g("a")

def g(x: int) -> int:
    return x

# -----
import torch

def f(c: bool) -> int:
    y = 1
    if c:
        # expected-error @+1 {{Variable 'y' previously had type int but is now being assigned to a value of type str}}
        y = "one"
    return y

# -----
import torch

def f(n: int) -> int:
    # expected-error @+1 {{function 'f' is called recursively. Recursive calls are not supported}}
    return f(n - 1)

# -----
import torch

def f(n: int) -> int:
    # expected-error @+1 {{SyntaxError: 'break' outside loop}}
    break

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{Return value was annotated as having type str but is actually of type int}}
    return x

# -----
import torch

def f(xs: int) -> int:
    # expected-error @+1 {{'int' object is not iterable}}
    for x in xs:
        pass
    return 0

# -----
# expected-error @+1 {{import of module 'numpy' is not supported in TorchScript}}
import numpy

def f(x: int) -> int:
    return x

# -----
import torch

def f(c: bool) -> int:
    if c:
        y = 1
    else:
        y = "one"
    # expected-error @+1 {{Type mismatch: y is set to type int in the true branch and type str in the false branch}}
    return y

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> int:
    # expected-error @+1 {{Tuple index out of range. Tuple is length 2 and index is 5}}
    return t[5]

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{exceptions must derive from BaseException}}
    raise "oops"

# -----
import torch
from typing import List

def f(xs: List[int]) -> List[int]:
    # expected-error @+1 {{Comprehension ifs are not supported yet}}
    return [x for x in xs if x > 0]

# -----
import torch
from typing import List

# expected-error @+1 {{Mutable default parameters are not supported because Python binds them to the function and they persist across function calls.}}
def f(xs: List[int] = [1]) -> int:
    return len(xs)

# -----
import torch
N = 3

def f(x: int) -> int:
    # expected-error @+1 {{python value of type 'int' cannot be used as a value. Perhaps it is a closed over global variable?}}
    return x + N

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{global variables aren't supported}}
    global y
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Lambda aren't supported}}
    g = lambda a: a
    return x

# -----
import torch

def f(x: torch.Tensor) -> int:
    # expected-error @+1 {{'Tensor' object has no attribute or method 'foo'.}}
    return x.foo

# -----
import torch

def g(x: int) -> int:
    return x

def f(x: int) -> int:
    # expected-error @+1 {{Expected at most 1 arguments but found 2 positional arguments.}}
    return g(x, x)

# -----
import torch

# expected-error @+1 {{Function was not annotated as having type None, but does not return along all paths}}
def f(x: int) -> int:
    if x > 0:
        return 1
