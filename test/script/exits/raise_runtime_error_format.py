import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: int) -> int:
    if x > 3:
        raise RuntimeError("too big: {}".format(x))
    return x
