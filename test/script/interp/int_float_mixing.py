import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, x: float) -> Tuple[float, float, float, float, float, bool, bool, bool]:
    return a + x, x - a, a * x, a / x, x // a, a < x, x >= a, a == x
