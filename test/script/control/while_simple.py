import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total
