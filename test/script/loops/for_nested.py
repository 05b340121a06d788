import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int, m: int) -> List[List[int]]:
    rows: List[List[int]] = []
    for i in range(n):
        row: List[int] = []
        for j in range(m):
            row.append(i * m + j)
        rows.append(row)
    return rows
