import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(words: List[str]) -> Tuple[Dict[str, List[int]], bool]:
    d: Dict[str, List[int]] = {}
    for i, w in enumerate(words):
        d.setdefault(w, []).append(i)
    return d, "b" in d.keys()
