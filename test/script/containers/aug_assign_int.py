import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    x += 3
    x -= 1
    x *= 4
    x //= 3
    x %= 5
    return x
