from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Gate(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.gate = nn.Parameter(torch.randn(width).sigmoid())

    def forward(self, x: Tensor) -> Tensor:
        return x * self.gate


class Net(nn.Module):
    def __init__(self, use_gate: bool = True):
        super().__init__()
        self.gate = Gate(4)
        self.mask: Optional[Tensor] = None
        self.use_gate = use_gate

    def forward(self, x: Tensor) -> Tensor:
        if self.use_gate:
            x = self.gate(x)
        mask = self.mask
        if mask is not None:
            x = x * mask
        return x
