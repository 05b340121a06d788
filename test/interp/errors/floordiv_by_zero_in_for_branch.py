from typing import List, Tuple

import torch


def f(n: int, d: int) -> int:
    s = 0
    for i in range(n):
        if i % 2 == 0:
            s += 3
        else:
            s += 10 // (d - i)
    return s
