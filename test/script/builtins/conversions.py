import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: float, b: int, x: torch.Tensor) -> Tuple[int, float, bool, bool, int, float]:
    return int(a), float(b), bool(b), bool(a), int(x.sum()), float(x[0])
