import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> str:
    s = ""
    for i in range(n):
        s += str(i)
    return s
