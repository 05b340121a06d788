import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int, y: int = 5, z: float = 0.5, name: str = "a") -> str:
    return name + str(x + y) + str(z)
