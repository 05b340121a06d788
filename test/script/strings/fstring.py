import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(name: str, n: int) -> str:
    return f"{name} has {n} items"
