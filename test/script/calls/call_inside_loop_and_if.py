import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def is_even(x: int) -> bool:
    return x % 2 == 0


def f(n: int) -> int:
    s = 0
    for i in range(n):
        if is_even(i):
            s += i
    return s
