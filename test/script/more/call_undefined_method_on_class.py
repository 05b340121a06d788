import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class A:
    def __init__(self):
        self.x = 1


def f(n: int) -> int:
    a = A()
    return a.missing(n)
