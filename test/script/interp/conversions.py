import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, x: float, b: bool) -> Tuple[int, int, float, float, int, float]:
    return int(x), int(-x), float(a), float(b), int(b), -x
