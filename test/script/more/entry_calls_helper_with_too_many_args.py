import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    if x > 0:
        return x
    return -x


def g(x: int) -> int:
    return f(x, x)
