import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[torch.Tensor], use: bool) -> List[Optional[torch.Tensor]]:
    out: List[Optional[torch.Tensor]] = []
    for x in xs:
        out.append(x if use else None)
    return out
