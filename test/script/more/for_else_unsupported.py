import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> int:
    for x in xs:
        if x == 0:
            break
    else:
        return -1
    return 0
