from typing import List, Tuple

import torch


def f(n: int) -> int:
    xs: List[int] = [1, 2, 3]
    s = 0
    for i in range(n):
        if i > 1:
            s = s + xs[i]
    return s
