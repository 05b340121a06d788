from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Dropoutish(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = 0.5

    def forward(self, x: Tensor) -> Tensor:
        if self.training:
            return x * (1.0 - self.p)
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = Dropoutish()
        self.bias = nn.Parameter(torch.full([4], 0.125))

    def forward(self, x: Tensor) -> Tuple[Tensor, bool]:
        return self.drop(x) + self.bias, self.training
