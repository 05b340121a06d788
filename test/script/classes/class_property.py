import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Rect:
    def __init__(self, w: float, h: float):
        self.w = w
        self.h = h

    @property
    def area(self) -> float:
        return self.w * self.h


def f(w: float, h: float) -> float:
    r = Rect(w, h)
    return r.area
