import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[torch.Tensor]) -> int:
    if isinstance(x, torch.Tensor):
        return x.numel()
    return -1
