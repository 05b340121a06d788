import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(c: bool) -> int:
    if c:
        v = 1
    else:
        raise Exception("no value")
    return v
