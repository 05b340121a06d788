import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[0] = 5.0
    y[1:, 0] = torch.zeros(2)
    return y
