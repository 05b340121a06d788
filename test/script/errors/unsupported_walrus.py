import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    if (y := x + 1) > 2:
        return y
    return 0
