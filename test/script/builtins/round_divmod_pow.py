import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: float, b: int) -> Tuple[float, int, int, float]:
    q, r = divmod(b, 3)
    return round(a), q, r, pow(a, 2)
