import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> int:
    i = 0
    while i < len(xs) and xs[i] != 0:
        i += 1
    return i
