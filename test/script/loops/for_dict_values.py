import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    d = {1: n, 2: n * 2}
    total = 0
    for v in d.values():
        total += v
    return total
