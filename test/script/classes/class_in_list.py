import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Item:
    def __init__(self, w: int):
        self.w = w


def f(n: int) -> int:
    items: List[Item] = []
    for i in range(n):
        items.append(Item(i))
    return sum([it.w for it in items])
