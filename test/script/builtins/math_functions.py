import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(x: float) -> List[float]:
    return [
        math.sqrt(x),
        math.exp(x),
        math.log(x),
        math.sin(x),
        math.cos(x),
        math.tanh(x),
        math.floor(x) * 1.0,
        math.ceil(x) * 1.0,
        math.fabs(-x),
        math.pow(x, 3.0),
        math.atan2(x, 1.0),
    ]
