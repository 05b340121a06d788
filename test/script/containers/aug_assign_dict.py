import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(words: List[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for w in words:
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    return counts
