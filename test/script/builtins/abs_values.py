import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: float, x: torch.Tensor) -> Tuple[int, float, torch.Tensor]:
    return abs(a), abs(b), abs(x)
