from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Config(nn.Module):
    def __init__(self):
        super().__init__()
        self.name = "affine"
        self.scale = 1.5
        self.steps = 3
        self.enabled = True
        self.pair = (2, 0.25)
        self.table: Dict[str, float] = {"a": 1.0, "b": -2.0}
        self.shape: List[int] = [2, 4]

    def forward(self, x: Tensor) -> Tensor:
        y = x.reshape(self.shape) * self.scale
        for _ in range(self.steps):
            y = y + self.pair[1] * self.pair[0]
        if self.enabled and self.name == "affine":
            y = y + self.table["a"] + self.table["b"]
        return y
