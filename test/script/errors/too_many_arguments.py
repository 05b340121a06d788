import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def helper(x: int) -> int:
    return x + 1


def f(a: int) -> int:
    return helper(a, a)
