import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> Optional[int]:
    if x > 0:
        return x
    return None
