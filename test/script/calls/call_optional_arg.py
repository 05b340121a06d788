import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def pick(x: Optional[int], default: int) -> int:
    if x is None:
        return default
    return x


def f(x: int) -> int:
    return pick(None, x) + pick(x, 0)
