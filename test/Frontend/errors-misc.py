# RUN: ember-opt %s --split-input-file --verify-diagnostics
# More errors at the range they are about: unpacking a non-tuple, dict() against an annotation,
# variables defined on one path only, tensor and tuple subscripts, string escapes, annotated
# chained assignment, `*` twice, list comprehensions with more elements, nesting limits.
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py); differences are noted.
import torch

def f(x: int) -> int:
    # expected-error @+1 {{int cannot be used as a tuple}}
    a, b = x
    return a

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Expected a type annotation of Dict for dict constructor dict(), got int}}
    y: int = dict()
    return x

# -----
import torch

def f(c: bool) -> int:
    if c:
        y = 1
    # PyTorch also shows the assignment in the true branch; Ember shows the use only.
    # expected-error @+1 {{y is not defined in the false branch}}
    return y

# -----
import torch

def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    # expected-error @+1 {{Ellipses followed by tensor indexing is currently not supported}}
    return x[..., i]

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> int:
    # expected-error @+1 {{tuple index must be an integer}}
    return t[1.5]

# -----
import torch

def f(x: int) -> str:
    # Python says "(unicode error) 'unicodeescape' codec can't decode bytes ...: illegal Unicode character".
    # expected-error @+1 {{invalid unicode escape in string literal}}
    return "\U00110000"

# -----
import torch

def f(x: int) -> int:
    # Python says "invalid syntax".
    # expected-error @+1 {{Annotated multiple assignment is not supported in python}}
    a: int = b = 1
    return x

# -----
import torch

# expected-error @+1 {{* argument may appear only once}}
def f(*, x: int, *, y: int) -> int:
    return x

# -----
import torch
from typing import List

def f(xs: List[int]) -> List[int]:
    # Python says "invalid syntax".
    # expected-error @+1 {{expected ']' but found ',' here}}
    return [x for x in xs, 1]

# -----
import torch

def f(x: int) -> int:
    # Python says "too many nested parentheses" (its limit is 200).
    # expected-error @+1 {{too many nested levels here (the limit is 256)}}
    return ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
