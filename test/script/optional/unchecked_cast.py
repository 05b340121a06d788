import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[int]) -> int:
    y = x
    if y is None:
        y = 10
    return y
