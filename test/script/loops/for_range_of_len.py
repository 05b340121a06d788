import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[float]) -> float:
    best = xs[0]
    for i in range(1, len(xs)):
        if xs[i] > best:
            best = xs[i]
    return best
