import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def step(x: float, k: int) -> float:
    if k % 2 == 0:
        return x * 0.5 + 1.0
    return x * 1.5 - 0.25


def f(n: int) -> float:
    acc = 0.0
    for k in range(n):
        acc = step(acc, k)
    return acc
