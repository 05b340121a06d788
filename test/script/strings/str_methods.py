import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def f(s: str) -> Tuple[str, str, str, bool, bool, int]:
    return (
        s.upper(),
        s.strip(),
        s.replace("a", "o"),
        s.startswith(" b"),
        s.endswith("  "),
        s.find("n"),
    )
