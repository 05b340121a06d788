import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> Tuple[int, List[int], int]:
    first, *mid, last = xs[0], xs[1], xs[2], xs[3]
    return first, mid, last
