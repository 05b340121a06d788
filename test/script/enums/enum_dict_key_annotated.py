from enum import Enum

from typing import Dict

import torch


class Color(Enum):
    RED = 1
    GREEN = 2


def f(x: int) -> int:
    d = torch.jit.annotate(Dict[Color, int], {})
    return len(d) + x
