import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[torch.Tensor]) -> torch.Tensor:
    if x is None:
        y = torch.zeros(2)
    else:
        y = x * 2
    return y
