import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: torch.Tensor, a: int, b: float) -> torch.Tensor:
    return a * x + b - x * a / b
