import torch
from typing import Final

LIMIT: Final[int] = 4


def f(x: int) -> int:
    return min(x, LIMIT)
