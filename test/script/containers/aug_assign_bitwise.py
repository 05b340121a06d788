import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    x |= 8
    x &= 12
    x ^= 1
    x <<= 2
    x >>= 1
    return x
