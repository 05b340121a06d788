import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> bool:
    return len(xs) > 0 and xs[0] == 1
