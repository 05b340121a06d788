import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return (
        torch.zeros(n, 2),
        torch.ones([2, n], dtype=torch.int64),
        torch.arange(n),
        torch.full([2], 3.5),
        torch.eye(n),
    )
