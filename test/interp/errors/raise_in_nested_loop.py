from typing import List, Tuple

import torch


def f(n: int) -> int:
    s = 0
    for i in range(n):
        j = 0
        while j < i:
            if i * j == 6:
                raise ValueError("i * j is 6")
            s += j
            j += 1
    return s
