import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: Optional[List[int]]) -> int:
    if xs is None:
        return 0
    return len(xs)
