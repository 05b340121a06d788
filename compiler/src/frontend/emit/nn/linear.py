# torch.nn.modules.linear as Ember compiles it when a module's __init__ creates one: the
# signatures and initial values of PyTorch's classes (2.x), drawn in PyTorch's order from the
# default generator, and forwards that compute what PyTorch's do.
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
        torch.nn.init._reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.linear(input, self.weight, self.bias)
