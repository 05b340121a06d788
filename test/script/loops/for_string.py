import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> int:
    n = 0
    for ch in s:
        if ch == "a":
            n += 1
    return n
