import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> Tuple[str, str, int]:
    return s[1], s[1:3], len(s)
