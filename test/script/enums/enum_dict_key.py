from enum import Enum

import torch


class Color(Enum):
    RED = 1
    GREEN = 2


def f(x: int) -> int:
    d = {Color.RED: 1, Color.GREEN: 2}
    return d[Color.GREEN] + x
