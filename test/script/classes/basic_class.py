import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Counter:
    def __init__(self, start: int):
        self.value = start

    def bump(self, by: int) -> int:
        self.value = self.value + by
        return self.value


def f(n: int) -> int:
    c = Counter(n)
    c.bump(2)
    return c.bump(3)
