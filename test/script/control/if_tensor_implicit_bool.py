import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if x.max() > y.max():
        z = x
    else:
        z = y
    return z + 1
