import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[int, int, int]:
    a = 1
    b = 2
    c = 3
    for i in range(n):
        a, b, c = c, a, b + i
    return a, b, c
