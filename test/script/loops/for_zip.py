import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: List[int], b: List[float]) -> float:
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s
