import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    out: List[torch.Tensor] = []
    for a, b in zip(x, y):
        out.append(a * b)
    return out
