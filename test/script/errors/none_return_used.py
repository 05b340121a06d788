import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def helper(x: int) -> None:
    pass


def f(x: int) -> int:
    return helper(x) + 1
