import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    if bool(x.sum() > 0):
        return x * 2
    else:
        return x - 1
