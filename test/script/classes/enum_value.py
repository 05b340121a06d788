from enum import Enum

import torch


class Color(Enum):
    RED = 1
    GREEN = 2


def f(x: int) -> int:
    c = Color.RED if x > 0 else Color.GREEN
    if c == Color.RED:
        return c.value * 10
    return c.value
