from typing import List, Tuple

import torch


def f(n: int) -> int:
    k = n
    total = 0
    while k > -5:
        total = total + 100 // k
        k -= 1
    return total
