import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> str:
    s = ""
    for v in (x, "a", 2.5):
        s = s + str(v) + ","
    return s
