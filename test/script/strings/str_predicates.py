import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> Tuple[bool, bool, bool, bool]:
    return s.isdigit(), s.isalpha(), s.islower(), s.isspace()
