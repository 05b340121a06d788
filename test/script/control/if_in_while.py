import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[int, int]:
    evens = 0
    odds = 0
    while n > 0:
        if n % 2 == 0:
            evens += 1
        else:
            odds += 1
        n -= 1
    return evens, odds
