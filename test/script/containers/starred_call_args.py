import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def add3(a: int, b: int, c: int) -> int:
    return a + b * 10 + c * 100


def f(x: int) -> int:
    tup = (x, x + 1)
    return add3(*tup, 5)
