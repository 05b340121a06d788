import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: List[int], b: List[int]) -> List[int]:
    return a + b + [0] * 2
