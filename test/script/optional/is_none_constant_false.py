import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    if x is None:
        return 0
    return x
