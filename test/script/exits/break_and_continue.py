import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> List[int]:
    out: List[int] = []
    for x in xs:
        if x == 0:
            continue
        if x > 100:
            break
        out.append(x)
    return out
