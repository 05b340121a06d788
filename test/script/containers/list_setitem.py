import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[float]) -> List[float]:
    xs[0] = 10.0
    xs[-1] = xs[1] * 2
    return xs
