import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(c: bool) -> int:
    if c:
        y = 1
    else:
        y = "one"
    return 0
