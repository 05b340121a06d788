import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> bool:
    return (a > 0 and b > 0) or not (a == b)
