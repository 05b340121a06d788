import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: Optional[int]) -> Tuple[bool, bool]:
    return x is None, x is not None
