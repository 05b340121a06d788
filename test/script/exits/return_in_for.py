import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int], target: int) -> int:
    for i, x in enumerate(xs):
        if x == target:
            return i
    return -1
