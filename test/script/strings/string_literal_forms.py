import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f() -> List[str]:
    return ['single', "double", '''triple''', "esc\tape\n", r"raw\n", "con" "cat"]
