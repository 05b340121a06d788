import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int], v: int) -> Tuple[bool, bool, int]:
    return v in xs, v not in xs, xs.count(v)
