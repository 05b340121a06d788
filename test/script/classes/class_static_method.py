import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


class MathUtil:
    def __init__(self):
        pass

    @staticmethod
    def double(x: int) -> int:
        return x * 2


def f(x: int) -> int:
    return MathUtil.double(x)
