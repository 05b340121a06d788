import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[int]) -> int:
    if x is None or x < 0:
        return 0
    return x
