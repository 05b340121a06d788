import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[str]) -> List[str]:
    out: List[str] = []
    for i, (a, b) in enumerate(zip(xs, xs[1:])):
        out.append(str(i) + a + b)
    return out
