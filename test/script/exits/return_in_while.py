import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    i = 1
    while i < 1000:
        if i >= n:
            return i
        i *= 2
    return -1
