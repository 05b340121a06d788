import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[int, int]:
    a = 0
    b = 1
    for i in range(n):
        a, b = b, (a + b) % 1000000007
    return a, b
