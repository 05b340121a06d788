import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, n: int) -> Tuple[bool, bool, bool, bool]:
    xs = [n]
    return (
        isinstance(x, torch.Tensor),
        isinstance(n, float),
        isinstance(xs, List[int]),
        isinstance(n, (float, int)),
    )
