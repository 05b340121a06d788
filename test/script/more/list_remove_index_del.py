import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> Tuple[List[int], int]:
    xs.remove(3)
    i = xs.index(5)
    del xs[0]
    return xs, i
