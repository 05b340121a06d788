# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of types: annotated variables, list and dict literals and comprehensions against their
# annotations, tuple slices and indices, subscripts of non-tensors and tensors, type expressions.
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py); differences are noted.
import torch

def f(c: bool) -> int:
    x = 1
    if c:
        # expected-error @+1 {{Attempting to declare and annotate the type of variable 'x' but it is already defined in an outer block}}
        x: int = 2
    return x

# -----
import torch

def f(c: bool) -> int:
    # expected-error @+1 {{Variable 'x' is annotated with type int but is being assigned to a value of type str}}
    x: int = "a"
    return 0

# -----
import torch
from typing import List

def f(x: int) -> List[int]:
    # expected-error @+1 {{Expected an annotation of type List but got int}}
    y: int = [x]
    return [x]

# -----
import torch
from typing import List

def f(x: int) -> List[int]:
    # expected-error @+1 {{List type annotation `List[int]` did not match the types of the given list elements, which were unified to Union[int, str]}}
    return [x, "a"]

# -----
import torch
from typing import List

def f(x: int) -> List[float]:
    # expected-error @+1 {{List type annotation `List[float]` did not match the types of the given list elements, which were unified to str}}
    y: List[float] = ["a"]
    return y

# -----
import torch
from typing import Dict

def f(x: int) -> Dict[str, int]:
    # expected-error @+1 {{Dict keys must contain only a single type. Expected: str but found int instead}}
    return {"a": x, 1: x}

# -----
import torch
from typing import Dict

def f(x: int) -> Dict[str, int]:
    # expected-error @+1 {{Type annotation was inferred to be `Dict[str, int]`, but the type of values given by the dict literal is Union[int, str]}}
    return {"a": x, "b": "c"}

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{Expected an annotation of type List but got int}}
    y: int = [x for x in xs]
    return 0

# -----
import torch
from typing import Dict, List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{Expected an annotation of type Dict but got int}}
    y: int = {x: x for x in xs}
    return 0

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int], i: int) -> Tuple[int]:
    # expected-error @+1 {{tuple slice indices must be integer constants}}
    return t[i:]

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> Tuple[int]:
    # expected-error @+1 {{List slice should have non-zero step}}
    return t[::0]

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, str], i: int) -> int:
    # expected-error @+1 {{Cannot index into a Tuple[int, str] with a non-integer literal because we cannot resolve the output type}}
    return t[i]

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{Unsupported operation: attempted to use multidimensional indexing on a non-tensor type}}
    return xs[0, 1]

# -----
import torch

def f(x: torch.Tensor) -> torch.Tensor:
    # expected-error @+1 {{An index can only have a single ellipsis ('...')}}
    return x[..., 0, ...]

# -----
import torch

def f(x: torch.Tensor) -> torch.Tensor:
    # expected-error @+1 {{Unsupported operation: indexing tensor with unsupported index type 'str'. Only ints, slices, lists and tensors are supported}}
    return x["a"]

# -----
import torch

def f(x: int) -> int:
    # PyTorch says "Cannot emit expr for: (dots)".
    # expected-error @+1 {{'...' is only allowed in subscripts}}
    y = ...
    return x

# -----
import torch

# Python itself fails first here (NameError), and for the next two parts.
# expected-error @+1 {{Unknown type name 'Foo'}}
def f(x: Foo) -> int:
    return 0

# -----
import torch
from typing import List

# expected-error @+1 {{Unknown type constructor Set}}
def f(x: Set[int]) -> int:
    return 0

# -----
import torch
from typing import Dict

# expected-error @+1 {{Dict expected 2 type argument(s) but found 1}}
def f(x: Dict[int]) -> int:
    return 0

# -----
import torch

# expected-error @+1 {{Expression of type + cannot be used in a type expression}}
def f(x: 1 + 2) -> int:
    return 0

# -----
import torch

def f(x: int) -> int:
    y = 2
    # expected-error @+1 {{Expected a value of type 'int' for argument 'b' but instead found type 'str'}}
    return x + y * "a"
