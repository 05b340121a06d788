import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, n: int) -> Tuple[int, torch.Tensor]:
    tup = (n, x, "s")
    return tup[0], tup[1]
