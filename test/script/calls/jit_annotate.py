import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Dict[str, int]:
    d = torch.jit.annotate(Dict[str, int], {})
    for i in range(n):
        d[str(i)] = i
    return d
