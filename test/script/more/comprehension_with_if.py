import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> List[int]:
    return [x for x in xs if x % 2 == 1]
