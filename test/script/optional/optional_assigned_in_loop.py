import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> int:
    best: Optional[int] = None
    for x in xs:
        if best is None or x > best:
            best = x
    if best is None:
        return -1
    return best
