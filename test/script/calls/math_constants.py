import math


def f(r: float) -> float:
    return math.pi * r * r + math.e - math.inf * 0.0 * 0.0
