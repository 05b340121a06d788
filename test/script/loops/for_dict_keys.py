import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    d = {"a": 1, "b": 2, "c": n}
    total = 0
    for k in d:
        total += d[k]
    return total
