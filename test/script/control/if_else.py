import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y
