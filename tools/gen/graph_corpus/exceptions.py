"""Exceptions: raise, assert, and the control flow they create."""

import warnings
from typing import List, Optional

from torch import Tensor

from .registry import scripted

C = "exceptions"


@scripted(C)
def raise_value_error(x: int) -> int:
    if x < 0:
        raise ValueError("x must be non-negative")
    return x


@scripted(C)
def raise_runtime_error_formatted(x: int) -> int:
    if x > 10:
        raise RuntimeError("too large: {}".format(x))
    return x * 2


@scripted(C)
def raise_bare_exception(x: int) -> int:
    if x == 0:
        raise Exception("zero")
    return 100 // x


@scripted(C)
def raise_in_else(x: int) -> int:
    if x > 0:
        y = x
    else:
        raise IndexError("bad")
    return y


@scripted(C)
def raise_in_loop(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            raise ValueError("negative element")
        s += x
    return s


@scripted(C)
def raise_not_implemented(kind: str) -> int:
    if kind == "a":
        return 1
    elif kind == "b":
        return 2
    raise NotImplementedError("unknown kind " + kind)


@scripted(C)
def assert_simple(x: int) -> int:
    assert x > 0
    return x


@scripted(C)
def assert_with_message(x: int, y: int) -> int:
    assert x < y, "x must be below y"
    return y - x


@scripted(C)
def assert_tensor_shape(x: Tensor) -> Tensor:
    assert x.dim() == 2, f"expected 2-d input, got {x.dim()}"
    return x.t()


@scripted(C)
def assert_optional(x: Optional[Tensor]) -> Tensor:
    assert x is not None, "x is required"
    return x + 1


@scripted(C)
def raise_only() -> int:
    raise RuntimeError("always")


@scripted(C)
def raise_after_loop(n: int) -> int:
    for i in range(n):
        if i * i == n:
            return i
    raise ValueError("not a square")


@scripted(C)
def assert_in_loop(xs: List[float]) -> float:
    total = 0.0
    for x in xs:
        assert x >= 0.0, "negative"
        total += x
    return total


@scripted(C)
def torch_check_like(x: Tensor, y: Tensor) -> Tensor:
    if x.size() != y.size():
        raise RuntimeError("size mismatch: " + str(x.size()) + " vs " + str(y.size()))
    return x + y


@scripted(C)
def warn_call(x: int) -> int:
    if x < 0:
        warnings.warn("negative input")
    return x
