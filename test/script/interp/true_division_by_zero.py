import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int, x: float) -> Tuple[float, float, float, float]:
    return a / b, x / 0.0, x // 0.0, x % 0.0
