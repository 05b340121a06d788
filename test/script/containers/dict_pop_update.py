import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[int, List[int]]:
    d = {1: 10, 2: 20}
    d.update({3: n})
    v = d.pop(1)
    return v, list(d.values())
