import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: int, b: int) -> int:
    return a % b
