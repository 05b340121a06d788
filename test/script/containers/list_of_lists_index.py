import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> int:
    grid = [[i * 3 + j for j in range(3)] for i in range(n)]
    return grid[n - 1][2]
