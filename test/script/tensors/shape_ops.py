import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, List[int]]:
    y = x.view(2, 6).transpose(0, 1).contiguous()
    z = x.reshape(-1).unsqueeze(0)
    w = torch.flatten(x.permute(2, 0, 1), 1)
    return y, z, w, list(x.shape)
