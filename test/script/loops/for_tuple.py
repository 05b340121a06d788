import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> List[torch.Tensor]:
    out: List[torch.Tensor] = []
    for v in (x, x + 1, x * 2):
        out.append(v.sum())
    return out
