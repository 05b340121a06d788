import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int, step: int) -> int:
    s = 0
    for i in range(a, b, step):
        s = s * 3 + i
    return s
