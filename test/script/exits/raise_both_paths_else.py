import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    if x == 0:
        y = 10
    else:
        raise ValueError("nonzero")
    return y
