import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    return F.pad(x, [1, 1]), F.max_pool2d(x, 2)
