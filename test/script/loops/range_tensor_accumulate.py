import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, n: int) -> torch.Tensor:
    y = torch.zeros_like(x)
    for _ in range(n):
        y = y + x
    return y
