import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Dict[str, int]:
    d: Dict[str, int] = {}
    d[n] = n
    return d
