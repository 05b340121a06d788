import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, shape: Tuple[int, int] = (1, 2)) -> torch.Tensor:
    return x.sum(0) + shape[0] * shape[1]
