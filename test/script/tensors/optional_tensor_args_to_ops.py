import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, w: Optional[torch.Tensor]) -> torch.Tensor:
    return F.layer_norm(x, [3], w)
