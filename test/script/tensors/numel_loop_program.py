import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros_like(x)
    for i in range(x.size(0)):
        if i % 2 == 0:
            out[i] = x[i] * 2
        else:
            out[i] = x[i] - 1
    return out
