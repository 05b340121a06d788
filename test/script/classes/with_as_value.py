from typing import Any, List, Tuple

import torch


class Resource:
    def __init__(self, v: int):
        self.v = v
        self.open = False

    def __enter__(self) -> int:
        self.open = True
        return self.v * 2

    def __exit__(self, a: Any, b: Any, c: Any):
        self.open = False


def f(x: int) -> Tuple[int, bool]:
    res = Resource(x)
    with res as doubled:
        y = doubled + 1
    return y, res.open
