import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: List[int], b: List[int], c: List[int]) -> List[int]:
    out: List[int] = []
    for x, y, z in zip(a, b, c):
        out.append(x + y * z)
    return out
