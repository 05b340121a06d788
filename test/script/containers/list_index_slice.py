import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> Tuple[int, int, List[int], List[int]]:
    return xs[0], xs[-1], xs[1:3], xs[::2]
