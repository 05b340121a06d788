import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int], s: str, x: torch.Tensor) -> Tuple[int, int, int, int]:
    d = {"a": 1}
    return len(xs), len(s), len(x), len(d)
