import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    for i in range(10):
        x = x * 2
        if bool(x.abs().max() > 4.0):
            return x
    return x.neg()
