import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> Tuple[List[str], str]:
    parts = s.split(",")
    return parts, "-".join(parts)
