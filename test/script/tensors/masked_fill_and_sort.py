import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    v, i = torch.sort(x.masked_fill(x < 0, 0.0), descending=True)
    return v, i
