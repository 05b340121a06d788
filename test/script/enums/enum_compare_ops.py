from enum import Enum

from typing import List

import torch


class Color(Enum):
    RED = 1
    GREEN = 2


def f(x: int) -> List[bool]:
    c = Color.RED if x > 0 else Color.GREEN
    return [
        c == Color.RED,
        c != Color.RED,
        torch.eq(c, Color.GREEN),
        torch.ne(c, Color.GREEN),
        Color.GREEN == c,
        Color.GREEN != c,
    ]
