import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def helper(x: torch.Tensor, k: int = 2) -> torch.Tensor:
    return x.pow(k)


def f(x: torch.Tensor) -> torch.Tensor:
    return helper(x) - helper(x, k=3)
