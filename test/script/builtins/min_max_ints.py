import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> Tuple[int, int, int, int]:
    return min(a, b), max(a, b), min([a, b, 0]), max(a, b, 100)
