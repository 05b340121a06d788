import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[int, int]:
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                return i, j
    return -1, -1
