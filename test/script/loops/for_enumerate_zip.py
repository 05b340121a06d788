import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: List[int], b: List[int]) -> int:
    s = 0
    for i, (x, y) in enumerate(zip(a, b)):
        s += i * (x - y)
    return s
