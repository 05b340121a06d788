from enum import Enum

from typing import Tuple

import torch


class Mode(Enum):
    FAST = 0.5
    SLOW = 2.0


class Runner:
    def __init__(self, fast: bool):
        self.mode = Mode.FAST if fast else Mode.SLOW

    def scale(self, x: torch.Tensor) -> torch.Tensor:
        if torch.ne(self.mode, Mode.SLOW):
            return x * self.mode.value
        return x / self.mode.value


def f(x: torch.Tensor, fast: bool) -> Tuple[torch.Tensor, bool, str]:
    r = Runner(fast)
    return r.scale(x), r.mode == Mode.FAST, r.mode.name
