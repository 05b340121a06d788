import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: float) -> int:
    s = 0
    for i in range(x):
        s += i
    return s
