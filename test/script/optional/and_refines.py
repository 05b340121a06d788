import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[int], y: Optional[int]) -> int:
    if x is not None and y is not None:
        return x + y
    return 0
