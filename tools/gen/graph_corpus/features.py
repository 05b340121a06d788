"""Other language features: enums, TorchScript classes (magic methods, context managers,
static methods), torch.jit.isinstance, is_scripting, overloads, Futures, tolist."""

from enum import Enum
from typing import Any, Dict, List, Optional, Tuple

import torch
from torch import Tensor

from .registry import scripted

C = "features"

class Color(Enum):
    RED = 1
    GREEN = 2


class Mode(Enum):
    TRAIN = "train"
    EVAL = "eval"


@torch.jit.script
class Stack:
    def __init__(self):
        self.items: List[int] = []

    def push(self, x: int) -> None:
        self.items.append(x)

    def pop(self) -> int:
        return self.items.pop()

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> int:
        return self.items[i]

    def __contains__(self, x: int) -> bool:
        return x in self.items

    @staticmethod
    def of(xs: List[int]) -> "Stack":
        s = Stack()
        for x in xs:
            s.push(x)
        return s


@torch.jit.script
class Timer:
    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1
        return self.depth

    def __exit__(self, a: Any, b: Any, c: Any):
        self.depth -= 1


@torch.jit.script
class Vec2:
    def __init__(self, x: float, y: float):
        self.x = x
        self.y = y

    def __add__(self, o: "Vec2") -> "Vec2":
        return Vec2(self.x + o.x, self.y + o.y)

    def __eq__(self, o: "Vec2") -> bool:
        return self.x == o.x and self.y == o.y

    def norm2(self) -> float:
        return self.x * self.x + self.y * self.y


@scripted(C)
def enum_compare(c: Color) -> int:
    if c == Color.RED:
        return 1
    return 2


@scripted(C)
def enum_value_name(c: Color) -> Tuple[int, str]:
    return c.value, c.name


@scripted(C)
def enum_string_values(m: Mode) -> bool:
    return m.value == "train" and m != Mode.EVAL


@scripted(C)
def enum_iterate() -> List[int]:
    out: List[int] = []
    for c in Color:
        out.append(c.value)
    return out


@scripted(C, inlined=True)
def class_magic_methods(xs: List[int]) -> int:
    s = Stack.of(xs)
    s.push(7)
    n = len(s)
    first = s[0]
    has = 3 in s
    return n + first + int(has) + s.pop()


@scripted(C, inlined=True)
def class_operator_overloads(a: float, b: float) -> bool:
    v = Vec2(a, b) + Vec2(b, a)
    return v == Vec2(a + b, a + b) and v.norm2() > 0.0


@scripted(C, inlined=True)
def class_context_manager(x: int) -> int:
    t = Timer()
    with t as d:
        x = x + d
    return x + t.depth


@scripted(C)
def jit_isinstance_refine(x: Any) -> int:
    if torch.jit.isinstance(x, List[int]):
        return len(x)
    elif torch.jit.isinstance(x, Dict[str, int]):
        return len(x.keys())
    elif torch.jit.isinstance(x, Tuple[int, str]):
        return x[0]
    return -1


@scripted(C)
def is_scripting_branch(x: Tensor) -> Tensor:
    if torch.jit.is_scripting():
        return x + 1
    return x - 1


@scripted(C)
def tolist_and_item(x: Tensor) -> List[float]:
    xs: List[float] = x.tolist()
    xs.append(x.sum().item())
    return xs


@scripted(C)
def tolist_nested(x: Tensor) -> List[List[int]]:
    return x.tolist()


@scripted(C)
def annotate_and_unwrap(x: Optional[Tensor]) -> Tensor:
    y = torch.jit.annotate(Optional[Tensor], x)
    return torch.jit._unwrap_optional(y) * 2


@scripted(C)
def tensor_attributes(x: Tensor):
    return x.layout, x.is_sparse, x.is_quantized, x.is_mkldnn, x.data, x.T, x.mT


@scripted(C)
def tensor_hash_id(x: Tensor, y: Tensor) -> bool:
    return x is y


@scripted(C)
def star_unpack_call(xs: List[int]) -> int:
    a, b = xs[0], xs[1]
    return max(a, b)


@scripted(C)
def uninitialized_after_break(xs: List[int]) -> int:
    found = -1
    for i, x in enumerate(xs):
        if x > 10:
            found = i
            break
    return found


@scripted(C)
def try_finally_like(x: int) -> int:
    r = 0
    while True:
        if x > 3:
            r = x
            break
        x += 1
    return r


@torch.jit._overload
def overloaded(x: int) -> int:
    pass


@torch.jit._overload
def overloaded(x: float) -> float:  # noqa: F811
    pass


def overloaded(x):  # noqa: F811
    return x * 2


@scripted(C, inlined=True)
def call_overloads(a: int, b: float) -> float:
    return overloaded(a) + overloaded(b)


@scripted(C)
def future_type(x: Tensor) -> Tensor:
    fut = torch.jit.fork(torch.neg, x)
    return torch.jit.wait(fut)
