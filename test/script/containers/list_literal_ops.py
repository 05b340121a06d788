import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> Tuple[List[int], int, int]:
    xs = [x, x + 1, x + 2]
    xs.append(7)
    xs.insert(0, -1)
    y = xs.pop()
    return xs, len(xs), y
