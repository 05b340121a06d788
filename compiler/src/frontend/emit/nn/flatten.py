# torch.nn.modules.flatten as Ember compiles it (see linear.py).
import torch
from torch import Tensor


class Flatten(torch.nn.Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return torch.flatten(input, self.start_dim, self.end_dim)
