import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    xs = []
    xs.append(x)
    xs.append(x * 2)
    return torch.cat(xs)
