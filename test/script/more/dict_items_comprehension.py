import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(n: int) -> Dict[str, int]:
    d = {"a": n, "b": n * 2}
    return {k + k: v + 1 for k, v in d.items()}
