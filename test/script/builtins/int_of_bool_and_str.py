import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(c: bool) -> Tuple[int, float, int]:
    return int(c), float(c), int("12")
