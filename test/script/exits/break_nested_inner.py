import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    count = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            count += 1
    return count
