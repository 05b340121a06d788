import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    i = 0
    while True:
        if i * i > n:
            break
        i += 1
    return i
