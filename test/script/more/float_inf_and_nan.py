import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: float) -> Tuple[float, bool, bool]:
    big = float("inf")
    return min(x, big), math.isnan(float("nan")), x < big
