from typing import List, Tuple

import torch


def f(x: float, n: int) -> float:
    for i in range(n):
        if x > 2.0:
            assert x < 3.0, "x left the range"
        x = x * 1.5
    return x
