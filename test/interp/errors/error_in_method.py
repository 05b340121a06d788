from typing import List, Tuple

import torch


class Acc:
    def __init__(self, k: int):
        self.k = k

    def step(self, x: int) -> int:
        return x // (self.k - x)


def f(n: int) -> int:
    a = Acc(3)
    s = 0
    for i in range(n):
        s += a.step(i)
    return s
