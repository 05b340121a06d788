import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def clamp01(x: float) -> float:
    return max(0.0, min(1.0, x))


def f(a: float, b: float) -> List[float]:
    return [clamp01(a), clamp01(b), clamp01(a + b)]
