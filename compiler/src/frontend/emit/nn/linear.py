# torch.nn.modules.linear as Ember compiles it when a module's __init__ creates one: the
# signatures and initial values of PyTorch's classes (2.x), drawn in PyTorch's order from the
# default generator, and forwards that compute what PyTorch's do.
import math
from typing import Optional

import torch
from torch import Tensor


class Identity(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(torch.nn.Module):
    bias: Optional[Tensor]

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features))
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(out_features))
        else:
            self.bias = None
        # reset_parameters, as PyTorch's.
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5.0))
        b = self.bias
        if b is not None:
            fan_in = torch.nn.init._calculate_fan_in_and_fan_out(self.weight)[0]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            torch.nn.init.uniform_(b, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.linear(input, self.weight, self.bias)
