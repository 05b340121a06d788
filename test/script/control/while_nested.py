import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    count = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            count += j
            j += 1
        i += 1
    return count
