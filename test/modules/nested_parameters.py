from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


def scale(x: Tensor, k: float) -> Tensor:
    return x * k


class Block(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n))
        self.register_buffer("shift", torch.arange(n).float() / n)

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(x @ self.weight + self.shift)


class Net(nn.Module):
    def __init__(self, n: int = 4):
        super().__init__()
        self.first = Block(n)
        self.second = Block(n)
        self.sizes: List[int] = [n, n]

    def forward(self, x: Tensor, k: float = 0.5) -> Tensor:
        return scale(self.second(self.first(x)), k) + len(self.sizes)
