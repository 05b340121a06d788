import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> str:
    if x < 0:
        return "neg"
    elif x == 0:
        return "zero"
    elif x < 10:
        pass
    else:
        return "big"
    return "small"
