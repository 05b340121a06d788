import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    while bool(x.sum() < 10.0):
        x = x * 2 + 1
    return x
