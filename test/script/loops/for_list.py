import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> int:
    total = 0
    for x in xs:
        total = total + x
    return total
