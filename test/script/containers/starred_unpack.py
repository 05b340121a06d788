import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[int, int, int]:
    a, *rest = x.size()
    return a, rest[0], rest[1]
