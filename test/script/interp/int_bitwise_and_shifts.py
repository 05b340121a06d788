import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> Tuple[int, int, int, int, int]:
    return a & b, a | b, a ^ b, a << b, a >> b
