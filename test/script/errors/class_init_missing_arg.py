import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class P:
    def __init__(self, x: int, y: int):
        self.x = x
        self.y = y


def f(x: int) -> int:
    return P(x).x
