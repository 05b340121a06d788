import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    total = 0
    for i in range(n):
        j = 0
        while j < i:
            if (i + j) % 3 == 0:
                total += i * j
            elif (i - j) % 5 == 0:
                total -= j
            else:
                total ^= i
            j += 1
    return total
