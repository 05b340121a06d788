"""Optionals and `is None` refinement."""

from typing import Dict, List, Optional, Tuple

import torch
from torch import Tensor

from .registry import scripted

C = "optional"


@scripted(C)
def is_none_refine(x: Optional[int]) -> int:
    if x is None:
        return 0
    return x + 1


@scripted(C)
def is_not_none_refine(x: Optional[Tensor]) -> Tensor:
    if x is not None:
        return x * 2
    return torch.zeros(1)


@scripted(C)
def optional_default_arg(x: int, y: Optional[int] = None) -> int:
    if y is None:
        y = 10
    return x + y


@scripted(C)
def optional_and_condition(a: Optional[int], b: Optional[int]) -> int:
    if a is not None and b is not None:
        return a + b
    return -1


@scripted(C)
def optional_or_condition(a: Optional[int]) -> int:
    if a is None or a < 0:
        return 0
    return a


@scripted(C)
def optional_unwrap(x: Optional[float]) -> float:
    assert x is not None
    return x * 2.0


@scripted(C)
def optional_torch_jit_unwrap(x: Optional[int]) -> int:
    return torch.jit._unwrap_optional(x)


@scripted(C)
def optional_return(xs: List[int], v: int) -> Optional[int]:
    for i, x in enumerate(xs):
        if x == v:
            return i
    return None


@scripted(C)
def optional_loop_carried(xs: List[int]) -> Optional[int]:
    best: Optional[int] = None
    for x in xs:
        if best is None or x > best:
            best = x
    return best


@scripted(C)
def optional_tensor_arg(x: Tensor, bias: Optional[Tensor]) -> Tensor:
    y = x * 3
    if bias is not None:
        y = y + bias
    return y


@scripted(C)
def optional_in_tuple(t: Tuple[Optional[int], str]) -> str:
    a, s = t
    if a is None:
        return s
    return s + str(a)


@scripted(C)
def optional_list(xs: Optional[List[int]]) -> int:
    if xs is None:
        return 0
    return len(xs)


@scripted(C)
def optional_dict_get(d: Dict[str, int], k: str) -> int:
    v = d.get(k)
    if v is None:
        return -1
    return v


@scripted(C)
def optional_none_literal() -> Optional[str]:
    return None


@scripted(C)
def optional_ternary(x: Optional[int]) -> int:
    return x if x is not None else 7


@scripted(C)
def optional_while(x: Optional[int]) -> int:
    n = 0
    while n < 100:
        if x is not None:
            n += x
        else:
            break
    return n


@scripted(C)
def optional_list_of_optional(xs: List[Optional[int]]) -> int:
    s = 0
    for x in xs:
        if x is not None:
            s += x
    return s


@scripted(C)
def none_type_arg(x: None) -> int:
    return 1
