import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(xs: List[torch.Tensor]) -> torch.Tensor:
    acc = torch.zeros(2)
    for x in xs:
        acc += x
    return acc
