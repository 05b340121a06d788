import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> Tuple[int, int, bool, bool]:
    return math.gcd(a, b), math.factorial(5), math.isnan(float(a)), math.isinf(math.inf)
