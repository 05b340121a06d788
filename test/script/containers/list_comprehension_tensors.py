import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [x * i for i in range(3)]
