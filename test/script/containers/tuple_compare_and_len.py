import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> Tuple[bool, int]:
    t1 = (a, b)
    t2 = (b, a)
    return t1 == t2, len(t1)
