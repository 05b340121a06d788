import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Point:
    def __init__(self, x: int):
        self.x = x


def f(a: int) -> int:
    p = Point(a)
    return p.y
