import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int, x: float) -> float:
    acc = 0.0
    k = 0
    while k < n:
        if k % 3 == 0:
            acc = acc * 0.5 + x
        else:
            acc = acc - float(k) / 7.0
        k += 1
    return acc
