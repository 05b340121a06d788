# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of statements: assignment targets and unpacking, augmented and subscripted assignment,
# del, with, loops unrolled over tuples, nested definitions and imports, mismatched returns.
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py); differences are noted.
import torch
from typing import List

def f(xs: List[int]) -> int:
    # Python says "invalid syntax. Maybe you meant '==' or ':=' instead of '='?".
    # expected-error @+1 {{cannot assign to function call}}
    len(xs), b = 1, 2
    return b

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{A Starred expression may only appear on the lhs within the presence of another non-starred expression}}
    *a, = xs
    return 0

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int, int]) -> int:
    # expected-error @+1 {{need 4 values to unpack but found only 3}}
    a, b, c, d = t
    return a

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int, int]) -> int:
    # expected-error @+1 {{too many values to unpack: need 2 but found 3}}
    a, b = t
    return a

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> int:
    # expected-error @+1 {{need at least 3 values to unpack but found only 2}}
    a, b, *c, d = t
    return a

# -----
import torch

def f(x: int) -> int:
    y = 4
    # expected-error @+1 {{unsupported kind of augmented assignment: FloorDiv}}
    y //= x
    return y

# -----
import torch

def f(x: torch.Tensor) -> torch.Tensor:
    y = x
    # expected-error @+1 {{unsupported kind of augmented assignment: MatMult}}
    y @= x
    return y

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(x: int) -> int:
    a = A()
    # expected-error @+1 {{Cannot emit inplace op on __torch__.A since it does not define an __imul__ or __mul__ method}}
    a *= 2
    return x

# -----
import torch

def f(x: str) -> str:
    y = x
    # expected-error @+1 {{Arguments for call are not valid.}}
    y *= 2
    return y

# -----
import torch
from typing import List

def f(xs: List[int]) -> List[int]:
    # PyTorch says "Cannot emit expr for: (slice expr ...)".
    # expected-error @+1 {{slice expressions are only allowed in subscripts}}
    xs[0:1] += [1]
    return xs

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> Tuple[int, int]:
    # expected-error @+1 {{Tuple[int, int] does not support augmented assignment.}}
    t[0] += 1
    return t

# -----
import torch
from typing import List

def f(xs: List[int]) -> List[int]:
    # expected-error @+1 {{Sliced expression not yet supported for subscripted assignment. File a bug if you want this}}
    xs[0:1] = [1]
    return xs

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> Tuple[int, int]:
    # expected-error @+1 {{Tuple[int, int] does not support subscripted assignment}}
    t[0] = 1
    return t

# -----
import torch
from typing import List

def f(xs: List[int]) -> List[int]:
    # expected-error @+1 {{del statements only support deletion at a single index, slicing is not supported (see https://github.com/pytorch/pytorch/issues/31430)}}
    del xs[0:1]
    return xs

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(x: int) -> int:
    a = A()
    # expected-error @+1 {{del statements are only supported for deleting list and dict items and variables}}
    del a.x
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{With item expression must return an object}}
    with x:
        pass
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(x: int) -> int:
    # expected-error @+1 {{Object returned by with item expression does not define __enter__ and __exit__ methods}}
    with A():
        pass
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def __enter__(self, y: int) -> int:
        return y

    def __exit__(self, a, b, c):
        pass

def f(x: int) -> int:
    # expected-error @+1 {{__enter__ must have only one argument and one return value}}
    with A() as y:
        pass
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def __enter__(self) -> int:
        return 1

    def __exit__(self, a, b):
        pass

def f(x: int) -> int:
    # expected-error @+1 {{__exit__ must have four arguments}}
    with A() as y:
        pass
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def __enter__(self) -> int:
        return 1

    def __exit__(self, a: int, b, c):
        pass

def f(x: int) -> int:
    # expected-error @+1 {{argument 1 of __exit__ must have Any type; TorchScript does not currently support passing exception type, value, or traceback to the __exit__ function.}}
    with A() as y:
        pass
    return x

# -----
import torch
from typing import Any, List

class A(object):
    def __init__(self):
        self.x = 1

    def __enter__(self) -> int:
        return 1

    def __exit__(self, a: Any, b: Any, c: Any):
        pass

def f(xs: List[int]) -> int:
    # PyTorch fails with an internal TypeError here (it builds its error report from None).
    # expected-error @+1 {{with item targets must be variables}}
    with A() as xs[0]:
        pass
    return 0

# -----
import torch
from typing import Tuple

def f(t: Tuple[int, int]) -> int:
    # expected-error @+3 {{Because we emit iteration over modulelists or tuples as unrolled loops, we do not support break or continue inside the body of these loops}}
    for x in t:
        if x > 1:
            break
    return 0

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{class definitions aren't supported}}
    class A(object):
        pass
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{import statements aren't supported}}
    import math
    return x

# -----
import torch

def f(x: int) -> int:
    # Python says "'continue' not properly in loop".
    # expected-error @+1 {{SyntaxError: 'continue' outside loop}}
    continue

# -----
import torch

def f(x: int):
    if x > 0:
        return 1
    # expected-error @+1 {{Previous return statement returned a value of type int but this return statement returns a value of type str}}
    return "a"
