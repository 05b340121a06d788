import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int, d: int) -> int:
    s = 0
    for i in range(n):
        if i % 2 == 0:
            s += i // (d - i)
        else:
            s -= (i * 7) // (d - i)
    return s
