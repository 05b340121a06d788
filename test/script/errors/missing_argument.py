import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def helper(x: int, y: int) -> int:
    return x + y


def f(a: int) -> int:
    return helper(a)
