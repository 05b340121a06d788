import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def square(x: int) -> int:
    return x * x


def f(a: int) -> int:
    return square(a) + square(a + 1)
