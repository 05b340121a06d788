import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[int], bs: List[bool]) -> Tuple[int, bool, bool]:
    return sum(xs), any(bs), all(bs)
