import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, xs: List[int]) -> Tuple[torch.Tensor, List[int]]:
    return x[-2:], xs[-1:0:-1]
