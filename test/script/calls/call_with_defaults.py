import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def scale(x: torch.Tensor, factor: float = 2.0, shift: int = 0) -> torch.Tensor:
    return x * factor + shift


def f(x: torch.Tensor) -> torch.Tensor:
    return scale(x) + scale(x, 3.0) + scale(x, shift=1)
