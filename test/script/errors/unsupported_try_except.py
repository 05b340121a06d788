import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    try:
        x = x + 1
    except Exception:
        x = 0
    return x
