from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Poly(nn.Module):
    def __init__(self, degree: int = 3):
        super().__init__()
        coefficients: List[float] = []
        for i in range(degree + 1):
            if i % 2 == 0:
                coefficients.append(1.0 / (i + 1))
            else:
                coefficients.append(-0.5 * i)
        self.coefficients = torch.tensor(coefficients)
        self.degree = degree

    def forward(self, x: Tensor) -> Tensor:
        out = torch.zeros_like(x)
        for i in range(self.degree + 1):
            out = out + self.coefficients[i] * x ** i
        return out
