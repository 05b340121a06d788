import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: bool, b: bool) -> Tuple[bool, bool, bool, bool, bool, bool, bool, bool]:
    return a and b, a or b, not a, a == b, a != b, a & b, a | b, a ^ b
