import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    x = 1
    for i in range(n):
        x = x * 6364136223846793005 + 1442695040888963407
        x = x ^ (x >> 7)
    return x
