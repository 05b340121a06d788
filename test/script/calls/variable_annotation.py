import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> Optional[int]:
    y: Optional[int] = None
    if x > 0:
        y = x
    return y
