import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> List[int]:
    out: List[int] = []
    for x in reversed(xs):
        out.append(x)
    return out
