import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def divmod_(a: int, b: int) -> Tuple[int, int]:
    return a // b, a % b


def f(a: int, b: int) -> int:
    q, r = divmod_(a, b)
    return q * 100 + r
