import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> Tuple[List[int], List[int], int, int]:
    ys = sorted(xs)
    xs.sort(reverse=True)
    return ys, xs, min(xs), max(xs)
