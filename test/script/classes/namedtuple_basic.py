from typing import NamedTuple

import torch


class Point(NamedTuple):
    x: float
    y: float


def f(a: float, b: float) -> float:
    p = Point(a, b)
    return p.x * p.y + p[0]
