import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int], x: torch.Tensor) -> Tuple[List[int], torch.Tensor]:
    xs[0] += 10
    x[1] += 5.0
    return xs, x
