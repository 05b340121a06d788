import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Cache:
    def __init__(self):
        self.value: Optional[torch.Tensor] = None

    def set(self, x: torch.Tensor) -> None:
        self.value = x


def f(x: torch.Tensor) -> torch.Tensor:
    c = Cache()
    c.set(x)
    return x
