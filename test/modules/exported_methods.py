from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Head(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(classes, 4) - 0.5)
        self.bias = nn.Parameter(torch.zeros(classes))

    @torch.jit.export
    def logits(self, x: Tensor) -> Tensor:
        return torch.nn.functional.linear(x, self.weight, self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return torch.softmax(self.logits(x), dim=-1)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head(3)
        self.temperature = 2.0

    def forward(self, x: Tensor) -> Tensor:
        return self.head(x / self.temperature)
