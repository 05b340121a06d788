import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class Pair:
    def __init__(self, first: int, second: int):
        self.first = first
        self.second = second


def make(a: int) -> Pair:
    return Pair(a, a * 2)


def total(p: Pair) -> int:
    return p.first + p.second


def f(a: int) -> int:
    return total(make(a))
