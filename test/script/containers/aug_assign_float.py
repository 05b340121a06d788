import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: float) -> float:
    x += 1.5
    x /= 2.0
    x **= 2.0
    return x
