from typing import Any, List

import torch


def f(n: int) -> int:
    xs: List[Any] = [n, "a", 1.5]
    return len(xs)
