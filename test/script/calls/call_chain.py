import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def inc(x: int) -> int:
    return x + 1


def twice_inc(x: int) -> int:
    return inc(inc(x))


def f(x: int) -> int:
    return twice_inc(x) * 2
