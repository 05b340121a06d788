import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(a: float) -> str:
    return "value: %s" % a
