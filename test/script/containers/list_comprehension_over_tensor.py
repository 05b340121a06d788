import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [row.sum() for row in x]
