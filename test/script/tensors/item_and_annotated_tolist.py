import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[float, List[float], int]:
    values: List[float] = x.tolist()
    return x.sum().item(), values, int(x.argmax())
