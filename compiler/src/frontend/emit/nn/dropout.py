# torch.nn.modules.dropout as Ember compiles it (see linear.py).
import torch
from torch import Tensor


class Dropout(torch.nn.Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return torch.nn.functional.dropout(input, self.p, self.training, self.inplace)
