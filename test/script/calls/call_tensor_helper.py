import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def affine(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return x * w + b


def f(x: torch.Tensor) -> torch.Tensor:
    return affine(x, x, torch.ones_like(x))
