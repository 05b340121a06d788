import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int, i: int) -> int:
    t = (x, "a")
    return t[i]
