import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x, flag):
    # type: (Optional[torch.Tensor], bool) -> torch.Tensor
    if x is None or not flag:
        return torch.zeros(1)
    return x
