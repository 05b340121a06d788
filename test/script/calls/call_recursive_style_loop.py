import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def gcd(a: int, b: int) -> int:
    while b != 0:
        a, b = b, a % b
    return a


def f(a: int, b: int) -> int:
    return gcd(a, b)
