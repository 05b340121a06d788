import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(pairs: List[Tuple[int, int]]) -> int:
    s = 0
    for a, b in pairs:
        s += a * b
    return s
