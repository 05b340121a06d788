import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def sub(a: int, b: int) -> int:
    return a - b


def f(x: int, y: int) -> Tuple[int, int]:
    return sub(b=x, a=y), sub(x, b=y)
