import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: float, b: int) -> Tuple[float, float]:
    return min(a, float(b)), max(a, 2.0)
