import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> List[int]:
    out: List[int] = []
    for i in range(n, 0, -2):
        out.append(i)
    return out
