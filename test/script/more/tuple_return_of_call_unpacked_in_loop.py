import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def step(a: int, b: int) -> Tuple[int, int]:
    return b, a + b


def f(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = step(a, b)
    return a
