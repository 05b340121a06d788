import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Acc:
    def __init__(self):
        self.total = 0.0
        self.count = 0


def f(xs: List[float]) -> float:
    a = Acc()
    for x in xs:
        a.total += x
        a.count += 1
    return a.total / a.count
