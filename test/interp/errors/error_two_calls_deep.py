from typing import List, Tuple

import torch


def inner(x: float, k: int) -> float:
    if k == 3:
        raise RuntimeError("k reached 3")
    return x * 0.5


def middle(x: float, k: int) -> float:
    y = x + 1.0
    return inner(y, k)


def f(n: int) -> float:
    acc = 0.0
    k = 0
    while k < n:
        acc = middle(acc, k)
        k += 1
    return acc
