import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, dims: List[int] = [0]) -> torch.Tensor:
    return x.sum(dims)
