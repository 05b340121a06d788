import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Box:
    def __init__(self):
        self.items: List[int] = []
        self.label: Optional[str] = None

    def add(self, v: int) -> None:
        self.items.append(v)


def f(n: int) -> Tuple[List[int], bool]:
    b = Box()
    for i in range(n):
        b.add(i)
    return b.items, b.label is None
