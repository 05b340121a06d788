import torch
from torch import nn


class WeightedSoftmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([0.5, 2.0, -1.0]))

    def forward(self, x):
        return torch.softmax(torch.relu(x * self.scale + 1.0), -1)
