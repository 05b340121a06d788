from enum import Enum

from typing import Dict, List

import torch


class Color(Enum):
    RED = 1
    GREEN = 2


def f(x: int) -> List[int]:
    colors = [Color.RED, Color.GREEN, Color.RED]
    names: Dict[str, Color] = {"a": Color.GREEN, "b": Color.RED}
    out: List[int] = []
    for c in colors:
        if c == names["a"] or torch.eq(c, names["b"]):
            out.append(c.value * x)
    return out
