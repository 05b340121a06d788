import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(k: str, v: int) -> Tuple[Dict[str, int], int, bool, List[str]]:
    d = {"a": 1, "b": 2}
    d[k] = v
    x = d.get("zz", -1)
    del d["a"]
    return d, x, "b" in d, list(d.keys())
