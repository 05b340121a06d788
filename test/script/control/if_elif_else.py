import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> str:
    if x < 0:
        s = "neg"
    elif x == 0:
        s = "zero"
    elif x < 10:
        s = "small"
    else:
        s = "big"
    return s
