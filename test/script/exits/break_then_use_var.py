import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> Tuple[int, bool]:
    found = False
    idx = 0
    for i in range(len(xs)):
        if xs[i] > 10:
            found = True
            idx = i
            break
    return idx, found
