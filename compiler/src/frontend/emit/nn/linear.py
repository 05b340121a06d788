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
        # reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), then the bias.
        a = math.sqrt(5.0)
        gain = math.sqrt(2.0 / (1 + a**2))
        bound = math.sqrt(3.0) * (gain / math.sqrt(in_features))
        with torch.no_grad():
            self.weight.uniform_(-bound, bound)
            b = self.bias
            if b is not None:
                bias_bound = 1 / math.sqrt(in_features) if in_features > 0 else 0.0
                b.uniform_(-bias_bound, bias_bound)

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.linear(input, self.weight, self.bias)
