import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Cache:
    def __init__(self):
        self.value = torch.jit.annotate(Optional[torch.Tensor], None)

    def get(self, x: torch.Tensor) -> torch.Tensor:
        v = self.value
        if v is None:
            v = x * 2
            self.value = v
        return v


def f(x: torch.Tensor) -> torch.Tensor:
    c = Cache()
    a = c.get(x)
    return c.get(a)
