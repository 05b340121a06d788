"""Calls between scripted functions: the graph keeps prim::CallFunction, the inlined graph not."""

from typing import List, Tuple

import torch
from torch import Tensor

from .registry import scripted

C = "calls"


def square(x: int) -> int:
    return x * x


def add3(a: float, b: float, c: float) -> float:
    return a + b + c


def clamp_int(x: int, lo: int, hi: int) -> int:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def tensor_helper(x: Tensor, scale: float = 2.0) -> Tensor:
    return torch.relu(x) * scale


def pair(x: int) -> Tuple[int, int]:
    return x, x + 1


@torch.jit.script
def prescripted_mul(a: Tensor, b: Tensor) -> Tensor:
    return a * b


@torch.jit.ignore
def ignored_python(x: int) -> int:
    return x + 1


@torch.jit.unused
def unused_python(x: int) -> int:
    return x - 1


def recursive_like_depth(xs: List[int]) -> int:
    return len(xs) + square(len(xs))


@scripted(C, inlined=True)
def call_simple(x: int) -> int:
    return square(x) + square(x + 1)


@scripted(C, inlined=True)
def call_float_args(x: float) -> float:
    return add3(x, 1.0, x * 2.0)


@scripted(C, inlined=True)
def call_with_control_flow(x: int) -> int:
    return clamp_int(square(x), 0, 100)


@scripted(C, inlined=True)
def call_default_arg(x: Tensor) -> Tensor:
    return tensor_helper(x) + tensor_helper(x, 0.5) + tensor_helper(x, scale=3.0)


@scripted(C, inlined=True)
def call_returning_tuple(x: int) -> int:
    a, b = pair(x)
    return a * b


@scripted(C, inlined=True)
def call_prescripted(a: Tensor, b: Tensor) -> Tensor:
    return prescripted_mul(a, b) + prescripted_mul(b, a)


@scripted(C, inlined=True)
def call_ignored(x: int) -> int:
    return ignored_python(x) * 2


@scripted(C, inlined=True)
def call_unused(x: int, flag: bool) -> int:
    if flag:
        return unused_python(x)
    return x


@scripted(C, inlined=True)
def call_nested(xs: List[int]) -> int:
    return recursive_like_depth(xs) + call_simple(len(xs))


@scripted(C, inlined=True)
def call_in_loop(n: int) -> int:
    s = 0
    for i in range(n):
        s += clamp_int(square(i), 0, 50)
    return s


@scripted(C, inlined=True)
def call_fork_wait(x: Tensor) -> Tensor:
    fut = torch.jit.fork(tensor_helper, x, 2.0)
    y = tensor_helper(x, 1.0)
    return torch.jit.wait(fut) + y


@scripted(C, inlined=True)
def call_fork_many(x: Tensor) -> Tensor:
    futs = [torch.jit.fork(prescripted_mul, x, x) for _ in range(3)]
    out = torch.zeros_like(x)
    for f in futs:
        out = out + torch.jit.wait(f)
    return out


@scripted(C, inlined=True)
def call_isinstance_annotate(x: int) -> List[int]:
    out = torch.jit.annotate(List[int], [])
    out.append(square(x))
    return out
