from typing import List, Tuple

import torch


def ratio(a: int, b: int) -> int:
    if a > b:
        return a // (b - 2)
    return b // a


def f(n: int) -> int:
    s = 0
    for i in range(1, n):
        s += ratio(i, 2)
    return s
