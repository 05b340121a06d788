import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[float]) -> Tuple[float, float, float]:
    return min(xs), max(xs), sum(xs)
