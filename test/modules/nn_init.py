from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 16)
        self.b = nn.Linear(16, 4)
        self.c = nn.Conv2d(2, 3, 3)
        self.emb = nn.Parameter(torch.empty(5, 8))
        self.pos = nn.Parameter(torch.empty(64, 8))
        nn.init.xavier_uniform_(self.a.weight)
        nn.init.zeros_(self.a.bias)
        nn.init.kaiming_normal_(self.b.weight, mode="fan_out", nonlinearity="relu")
        nn.init.constant_(self.b.bias, 0.1)
        nn.init.kaiming_uniform_(self.c.weight, a=0.2)
        nn.init.normal_(self.c.bias, std=0.02)
        nn.init.trunc_normal_(self.emb, std=0.5)
        nn.init.trunc_normal_(self.pos, mean=3.0, std=2.0, a=-1.0, b=0.0)
        torch.nn.init.xavier_normal_(self.emb, gain=nn.init.calculate_gain("tanh"))
        nn.init.ones_(self.pos[0])

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        y = self.b(torch.relu(self.a(x + self.emb[0] + self.pos[0])))
        return y, self.c.weight.sum(), self.pos.sum()
