# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of values that are not first-class: tolist used as a function or annotated with an
# element type it cannot produce, a module class called from script, a tuple of unknown
# elements unpacked, a variable re-assigned between a first-class and a sugared value, a
# module's Final attribute assigned, a tuple zipped with a list; and type annotations PyTorch
# rejects (typing forms without their contained types, expressions that are no types).
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py); differences are noted.
import torch
from typing import List

def f(x: torch.Tensor) -> List[float]:
    g = x.tolist
    # PyTorch fails an internal assert here ("expecting kind '.' but found 'variable'").
    # expected-error @+1 {{tolist must be called as a method}}
    return torch.jit.annotate(List[float], g())

# -----
import torch
from typing import List

def f(x: torch.Tensor) -> List[str]:
    # expected-error @+1 {{str is not one of the supported element types for tolist: int, float, complex, bool}}
    return torch.jit.annotate(List[str], x.tolist())

# -----
import torch
import torch.nn as nn

class Sub(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x

class M(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # PyTorch says "Class Sub does not have an __init__ function defined" where a free
        # function (not a module's method) does this.
        # expected-error @+1 {{Cannot instantiate class 'Sub' in a script function}}
        m = Sub()
        return m(x)

# -----
import torch
from typing import Any

def f(x: Any) -> int:
    if isinstance(x, tuple):
        # expected-error @+1 {{Provided tuple is not fully defined/refined including its element types, please provide a value of type like Tuple[int, int]}}
        a, b = x
        return 1
    return 0

# -----
import torch

def f(x: int) -> int:
    y = torch
    if x > 0:
        # expected-error @+1 {{Cannot re-assign 'y' because it has type value of type 'int' and y is not a first-class value.  Only reassignments to first-class values are allowed}}
        y = 1
    return x

# -----
import torch

def f(x: int) -> int:
    y = 1
    if x > 0:
        # expected-error @+1 {{Cannot re-assign 'y' to a value of type python value of type 'module' because y is not a first-class value.  Only reassignments to first-class values are allowed}}
        y = torch
    return x

# -----
import torch
import torch.nn as nn
from typing import Final

class M(nn.Module):
    k: Final[int] = 3

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # A Final attribute is a constant of the module type, not one of its attributes.
        # expected-error @+1 {{Tried to set nonexistent attribute: k. Did you forget to initialize it in __init__()?}}
        self.k = 4
        return x

# -----
import torch
from typing import List, Tuple

def f(t: Tuple[int, float], l: List[int]) -> int:
    s = 0
    # A tuple's loop is unrolled, a list's is not: they cannot share one.
    # expected-error @+1 {{Can not iterate over a module list or tuple with a value that does not have a statically determinable length}}
    for a, b in zip(t, l):
        s += b
    return s

# -----
import torch
from typing import List

# expected-error @+1 {{Attempted to use List without a contained type. Please add a contained type, e.g. List[int]}}
def f(x: List) -> int:
    return 1

# -----
import torch
from typing import Tuple

def f(x: int) -> int:
    # expected-error @+1 {{Attempted to use Tuple without a contained type. Please add a contained type, e.g. Tuple[int]}}
    y = torch.jit.annotate(Tuple, (1, 2))
    return x

# -----
import torch
from typing import Dict

# expected-error @+1 {{Attempted to use Dict without contained types. Please add contained type, e.g. Dict[int, int]}}
def f(x: Dict) -> int:
    return 1

# -----
import torch
from typing import Optional

# expected-error @+1 {{Attempted to use Optional without a contained type. Please add a contained type, e.g. Optional[int]}}
def f(x: Optional) -> int:
    return 1

# -----
import torch

# The builtin classes alone are accepted: any tuple, any list.
def f(x: tuple, y: list) -> int:
    return 1

# -----
import torch
from typing import Tuple

# expected-error @+1 {{Expression of type dots cannot be used in a type expression}}
def f(x: Tuple[int, ...]) -> int:
    return 1

# -----
import torch

# expected-error @+1 {{Expression of type const cannot be used in a type expression}}
def f(x: 3) -> int:
    return 1

# -----
import torch

# expected-error @+1 {{Expression of type list-literal cannot be used in a type expression}}
def f(x: [int]) -> int:
    return 1

# -----
import torch

# expected-error @+1 {{Expression of type tuple-literal cannot be used in a type expression}}
def f(x: (int, int)) -> int:
    return 1

# -----
import torch
from typing import List

def g(a: int, b: int) -> int:
    return a

def f(a: List[int]) -> int:
    # Python takes `*a` after a keyword argument; a list's length is unknown here.
    # expected-error @+1 {{cannot statically infer the expected size of a list in this context}}
    return g(b=1, *a)

# -----
import torch

def g(a: int, b: int) -> int:
    return a

def f(x: int) -> int:
    t = (x,)
    return g(b=1, *t)

# -----
import torch

def f(c: bool) -> int:
    if c:
        pass
    else:
        y = 1
    # expected-error @+1 {{y is not defined in the true branch}}
    return y

# -----
import torch

def f(c: bool) -> int:
    x = []
    if c:
        # expected-error @+1 {{Empty lists default to List[Tensor]. Add a variable annotation to the assignment to create an empty list of another type (torch.jit.annotate(List[T, []]) where T is the type of elements in the list for Python 2)}}
        x = [1]
    return 1

# -----
import torch

@torch.jit.unused
def h(x: int) -> int:
    return x

def f(x: int) -> int:
    # expected-error @+1 {{python value of type 'function' cannot be used as a value. Perhaps it is a closed over global variable? If so, please consider passing it in as an argument or use a local variable instead.}}
    y = [h]
    return x
