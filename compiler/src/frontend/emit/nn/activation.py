# torch.nn.modules.activation as Ember compiles it (see linear.py).
from typing import Optional

import torch
from torch import Tensor


class ReLU(torch.nn.Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.relu(input, inplace=self.inplace)


class ReLU6(torch.nn.Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.relu6(input, inplace=self.inplace)


class LeakyReLU(torch.nn.Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.leaky_relu(input, self.negative_slope, self.inplace)


class GELU(torch.nn.Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.gelu(input, approximate=self.approximate)


class SiLU(torch.nn.Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.silu(input, inplace=self.inplace)


class Hardswish(torch.nn.Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.hardswish(input, self.inplace)


class Sigmoid(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return torch.sigmoid(input)


class Tanh(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return torch.tanh(input)


class Softmax(torch.nn.Module):
    def __init__(self, dim: Optional[int] = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.softmax(input, self.dim, _stacklevel=5)
