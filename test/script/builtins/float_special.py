import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> Tuple[bool, bool]:
    x = float(s)
    return math.isinf(x), x > 1e308
