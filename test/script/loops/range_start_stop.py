import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> List[int]:
    out: List[int] = []
    for i in range(a, b):
        out.append(i)
    return out
