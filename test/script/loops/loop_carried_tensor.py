import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    h = torch.zeros(3)
    for i in range(4):
        h = torch.tanh(h + x * i)
    return h
