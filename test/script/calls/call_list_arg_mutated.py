import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def push(xs: List[int], v: int) -> None:
    xs.append(v)


def f(n: int) -> List[int]:
    xs: List[int] = []
    for i in range(n):
        push(xs, i * 10)
    return xs
