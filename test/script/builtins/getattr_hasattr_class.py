import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Config:
    def __init__(self, size: int):
        self.size = size


def f(n: int) -> Tuple[int, bool, bool]:
    c = Config(n)
    return getattr(c, "size"), hasattr(c, "size"), hasattr(c, "missing")
