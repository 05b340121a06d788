import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str, g: str) -> Tuple[int, float]:
    return int(s), float(g)
