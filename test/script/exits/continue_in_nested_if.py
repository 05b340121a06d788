import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    s = 0
    for i in range(n):
        if i > 2:
            if i % 2 == 1:
                continue
            s += 100
        s += i
    return s
