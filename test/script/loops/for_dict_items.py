import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> List[str]:
    d: Dict[str, int] = {"x": n, "y": n + 1}
    out: List[str] = []
    for k, v in d.items():
        out.append(k + str(v))
    return out
