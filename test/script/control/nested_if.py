import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> int:
    r = 0
    if a > 0:
        if b > 0:
            r = 1
        else:
            r = 2
    else:
        if b > 0:
            r = 3
    return r
