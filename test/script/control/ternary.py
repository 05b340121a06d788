import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: float) -> float:
    return x if x > 0.0 else -x
