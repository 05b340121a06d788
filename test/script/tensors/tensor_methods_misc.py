import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [
        x.expand(2, 3),
        x.repeat(2),
        x.flip(0),
        x.cumsum(0),
        x.type_as(torch.zeros(1, dtype=torch.float64)),
        x.new_zeros([2]),
    ]
