import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: float) -> Tuple[float, float, int, float, bool]:
    return a + b, a / 2, a // 2, b ** 2, a == 2.0
