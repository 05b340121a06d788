import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[str]) -> List[str]:
    out: List[str] = []
    for i, x in enumerate(xs, 1):
        out.append(str(i) + x)
    return out
