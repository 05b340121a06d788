# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of the lexer and the parser. Python's own syntax errors carry Python's words (PyTorch
# reads the source with Python's `ast`, so these are what a user sees from torch.jit.script);
# constructs Python accepts but TorchScript does not carry PyTorch's words (frontend.py).
# Each part was checked with tools/gen/torch_graphs.py; differences are noted in place.
import torch

def f(x: int) -> int:
    # expected-error @+1 {{'(' was never closed}}
    return (x +

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{unexpected character after line continuation character}}
    y = x \ 2
    return y

# -----
import torch

def f(x: int) -> int:
    if x > 0:
        x = 1
    # expected-error @+1 {{inconsistent use of tabs and spaces in indentation}}
	x = 2
    return x

# -----
import torch

def f(x: int) -> int:
    if x > 0:
        x = 1
      # expected-error @+1 {{unindent does not match any outer indentation level}}
      x = 2
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{expected a valid token but found '$' here}}
    return x $ 1

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{unterminated string literal}}
    return "abc

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{invalid number literal '1e'}}
    return x + 1e

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers}}
    return x + 012

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Integral constant out of range (must fit in a signed 64 bit integer)}}
    return x + 99999999999999999999

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{Integral constant out of range (must fit in a signed 64 bit integer)}}
    return x + 0x1ffffffffffffffffff

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{truncated \xXX escape}}
    return "\x4"

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{Unknown Constant expression type}}
    return b"abc"

# -----
import torch

def f(x: int) -> str:
    # Python and so PyTorch read named escapes; Ember has no table of Unicode names.
    # expected-error @+1 {{named unicode escapes (\N{...}) are not supported in TorchScript}}
    return "\N{EM DASH}"

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{NamedExpr aren't supported}}
    if (y := x) > 0:
        return y
    return 0

# -----
import torch

def f(x: int) -> int:
    y = x
        # expected-error @+1 {{unexpected indent}}
        z = y
    return y

# -----
import torch

def f(x: int) -> int:
    def g():
        # PyTorch reports the nested def first ("function definitions aren't supported"):
    # Ember's parser refuses `nonlocal` before the emitter sees the def.
    # expected-error @+1 {{nonlocal variables aren't supported}}
        nonlocal x
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{only single target (not tuple) can be annotated}}
    a, b: int = 1, 2
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{illegal target for annotation}}
    x + 1: int = 1
    return x

# -----
import torch

def f(x: int) -> int:
    a = 1
    b = 2
    # expected-error @+1 {{'tuple' is an illegal expression for augmented assignment}}
    a, b += 1
    return x

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{starred assignment target must be in a list or tuple}}
    *a = xs
    return 0

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{multiple starred expressions in assignment}}
    a, *b, *c = xs
    return a

# -----
import torch

def g() -> int:
    return 1

def f(x: int) -> int:
    # expected-error @+1 {{cannot assign to function call}}
    g() = x
    return x

# -----
import torch
# expected-error @+1 {{relative imports are not supported}}
from . import helpers

def f(x: int) -> int:
    return x

# -----
import torch

def f(x: int) -> int:
    while x > 0:
        x -= 1
    # PyTorch fails with an internal TypeError here (it builds its error report from None).
    # expected-error @+1 {{else branches of while loops aren't supported}}
    else:
        x = 5
    return x

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{else branches of for loops aren't supported}}
    for i in range(x):
        x -= 1
    else:
        x = 5
    return x

# -----
import torch
# expected-error @+1 {{async function definitions aren't supported}}
async def f(x: int) -> int:
    return x

# -----
import torch
# expected-error @+1 {{Number of type annotations (1) did not match the number of function parameters (2)}}
def f(x, y):
    # type: (int) -> int
    return x

# -----
import torch
# expected-error @+1 {{Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults}}
def f(*xs: int) -> int:
    return 0

# -----
import torch
# expected-error @+1 {{non-default argument follows default argument}}
def f(x: int = 1, y: int) -> int:
    return x

# -----
import torch
from typing import List

def f(xs: List[int]) -> List[int]:
    # expected-error @+1 {{Only a single generator is currently supported}}
    return [x + y for x in xs for y in xs]

# -----
import torch
from typing import Dict

def f(d: Dict[str, int]) -> Dict[str, int]:
    # expected-error @+1 {{Dict expansion (e.g. `{**dict}`) is not supported}}
    return {**d}

# -----
import torch
from typing import Dict

def g(x: int) -> int:
    return x

def f(d: Dict[str, int]) -> int:
    # expected-error @+1 {{keyword-arg expansion is not supported}}
    return g(**d)

# -----
import torch

def g(x: int) -> int:
    return x

def f(y: int) -> int:
    # expected-error @+1 {{keyword argument repeated: x}}
    return g(x=y, x=y)

# -----
import torch
from typing import List

def f(xs: List[int]) -> int:
    # expected-error @+1 {{Generator expression must be parenthesized}}
    return max(x for x in xs, 1)

# -----
import torch

def g(x: int, y: int) -> int:
    return x

def f(y: int) -> int:
    # expected-error @+1 {{positional argument follows keyword argument}}
    return g(x=y, y)

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{f-string: single '}' is not allowed}}
    return f"{x}}"

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{Don't support conversion in JoinedStr}}
    return f"{x!r}"

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{Don't support formatting in JoinedStr}}
    return f"{x:3}"

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{f-string: expecting '}'}}
    return f"{x"

# -----
import torch

def f(x: int) -> str:
    # expected-error @+1 {{f-string: empty expression not allowed}}
    return f"{}"

# -----
import torch

def f(x: int) -> int:
    # expected-error @+1 {{can't use starred expression here}}
    return *x

# -----
import torch
from typing import List

def f(x: List[int]) -> List[int]:
    # expected-error @+1 {{can't use starred expression here}}
    y = *x
    return y

# -----
import torch
from typing import List

def f(x: List[int]) -> List[int]:
    # expected-error @+1 {{can't use starred expression here}}
    x += *x
    return x

# -----
import torch
from typing import List

def f(x: List[int]) -> List[int]:
    # Python says "did you forget parentheses around the comprehension target?".
    # expected-error @+1 {{expected a single list comprehension within '[' , ']'}}
    return [1, v for v in x]

# -----
import torch
from typing import List

def f(x: List[int]) -> int:
    # Python says "'async for' outside async function".
    # expected-error @+1 {{async for loops aren't supported}}
    async for v in x:
        pass
    return 1

# -----
import torch

def f(x: int) -> str:
    # Python adds "(detected at line N)".
    # expected-error @+1 {{unterminated triple-quoted string literal}}
    s = """abc
    return s

# -----
import torch

def f(x: int) -> int:
    # Python says "'async with' outside async function".
    # expected-error @+1 {{async with statements aren't supported}}
    async with x:
        pass
    return x

# -----
import torch

@torch.jit.script
# Python says "invalid syntax".
# expected-error @+1 {{expected 'def' or 'class' after a decorator but found 'ident' here}}
x = 1
