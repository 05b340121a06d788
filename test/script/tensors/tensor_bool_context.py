import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> int:
    n = 0
    while bool(x.any()):
        x = x[1:]
        n += 1
    return n
