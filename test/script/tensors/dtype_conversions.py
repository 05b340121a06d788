import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    return x.to(torch.float64), x.long(), x.to(dtype=torch.int32).float(), x.element_size()
