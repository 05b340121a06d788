import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int, stop: int) -> Tuple[int, int]:
    s = 0
    last = -1
    for i in range(n):
        if i % 4 == 1:
            continue
        if i * i > stop:
            break
        s += i
        last = i
    return s, last
