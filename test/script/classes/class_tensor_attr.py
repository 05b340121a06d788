import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Linear:
    def __init__(self, w: torch.Tensor, b: torch.Tensor):
        self.w = w
        self.b = b

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, self.w) + self.b


def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    lin = Linear(w, torch.ones(2))
    return lin.apply(x)
