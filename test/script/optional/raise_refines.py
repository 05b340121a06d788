import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[float]) -> float:
    if x is None:
        raise ValueError("x is required")
    return x / 2.0
