import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    steps = 0
    while True:
        x = x * 0.5
        steps += 1
        if bool(x.abs().max() < 0.1):
            break
    return x, steps
