# torch.nn.modules.normalization as Ember compiles it (see linear.py).
from typing import List, Optional, Union

import torch
from torch import Tensor


class LayerNorm(torch.nn.Module):
    weight: Optional[Tensor]
    bias: Optional[Tensor]

    def __init__(
        self,
        normalized_shape: Union[int, List[int]],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
    ):
        super().__init__()
        if isinstance(normalized_shape, int):
            shape = [normalized_shape]
        else:
            shape = normalized_shape
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = torch.nn.Parameter(torch.ones(shape))
            if bias:
                self.bias = torch.nn.Parameter(torch.zeros(shape))
            else:
                self.bias = None
        else:
            self.weight = None
            self.bias = None

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.layer_norm(
            input, self.normalized_shape, self.weight, self.bias, self.eps
        )
