import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> List[int]:
    out: List[int] = []
    for i in range(-n, n):
        if i < 0:
            out.append(-i)
        elif i == 0:
            out.append(100)
        elif i >= n - 1:
            out.append(i * 1000)
        else:
            out.append(i)
    return out
