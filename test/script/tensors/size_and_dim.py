import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[int, int, int, List[int]]:
    return x.size(0), x.dim(), x.numel(), x.size()
