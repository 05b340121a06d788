import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Stack:
    def __init__(self):
        self.items: List[torch.Tensor] = []

    def push(self, x: torch.Tensor) -> None:
        self.items.append(x)

    def total(self) -> torch.Tensor:
        out = torch.zeros(2)
        for x in self.items:
            out = out + x
        return out


def f(x: torch.Tensor) -> torch.Tensor:
    s = Stack()
    for i in range(3):
        s.push(x * i)
    return s.total()
