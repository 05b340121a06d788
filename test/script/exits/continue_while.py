import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s
