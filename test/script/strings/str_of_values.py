import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: float, c: bool) -> str:
    return str(a) + "|" + str(b) + "|" + str(c) + "|" + str([a, a])
