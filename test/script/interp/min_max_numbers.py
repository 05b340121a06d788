import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int, x: float) -> Tuple[int, int, float, float, float]:
    return min(a, b), max(a, b), min(x, 1.0), max(x, 1.0), min(a, x)
