import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> Tuple[int, str]:
    return ord(s[0]), chr(ord(s[0]) + 1)
