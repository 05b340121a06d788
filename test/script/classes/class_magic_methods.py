import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Vec:
    def __init__(self, x: float, y: float):
        self.x = x
        self.y = y

    def __add__(self, other: "Vec") -> "Vec":
        return Vec(self.x + other.x, self.y + other.y)

    def __len__(self) -> int:
        return 2

    def __eq__(self, other: "Vec") -> bool:
        return self.x == other.x and self.y == other.y


def f(a: float, b: float) -> Tuple[float, int, bool]:
    v = Vec(a, b) + Vec(1.0, 1.0)
    return v.x + v.y, len(v), v == Vec(a + 1.0, b + 1.0)
