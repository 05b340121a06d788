from typing import Any, List, Tuple

import torch


class Guard:
    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1

    def __exit__(self, a: Any, b: Any, c: Any):
        self.depth -= 1


def f(x: int) -> int:
    g = Guard()
    with g:
        if x > 0:
            return x
    return -g.depth
