import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            break
        s += x
    return s
