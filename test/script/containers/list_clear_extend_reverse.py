import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> List[int]:
    ys = xs.copy()
    ys.extend([7, 8])
    ys.reverse()
    xs.clear()
    return ys + xs
