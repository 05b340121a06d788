import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[int, List[int]]:
    r = [i for i in range(0, n, 2)]
    return len(r), r
