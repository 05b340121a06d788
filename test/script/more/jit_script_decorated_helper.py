import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


@torch.jit.script
def double(x: int) -> int:
    return x * 2


def f(x: int) -> int:
    return double(x) + 1
