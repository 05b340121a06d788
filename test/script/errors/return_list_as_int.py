import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int]) -> int:
    for x in xs:
        pass
    if len(xs) > 0:
        return 1
    return xs
