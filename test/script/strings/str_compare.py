import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: str, b: str) -> Tuple[bool, bool, bool, bool]:
    return a == b, a != b, a < b, a in "xxabcxx"
