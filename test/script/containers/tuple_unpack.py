import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> Tuple[int, int]:
    x, y = b, a
    (p, q), r = (x, y), 3
    return p + r, q
