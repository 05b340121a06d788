# TorchScript source as users write it: a seed for the parser's robustness test and fuzz target.
from __future__ import annotations

import math
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from typing import Dict, List, NamedTuple, Optional, Tuple


class Pair(NamedTuple):
    first: int
    second: float = 0.5


@torch.jit.script
class Counter(object):
    def __init__(self, start: int):
        self.count = start
        self.history = []  # type: List[int]

    def bump(self, by=1):
        # type: (int) -> int
        self.count += by
        self.history.append(self.count)
        return self.count


def helper(x: Tensor, *, scale: float = 1.0, mask: Optional[Tensor] = None) -> Tensor:
    """Scales `x`, masking where asked."""
    if mask is not None:
        x = x.masked_fill(mask, 0.0)
    return x * scale


class Net(nn.Module):
    __constants__ = ["depth"]
    depth: int

    def __init__(self, depth: int = 3) -> None:
        super().__init__()
        self.depth = depth
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(depth)])

    @torch.jit.ignore
    def debug(self, x):
        print(x)

    @property
    def width(self) -> int:
        return 4

    def forward(self, x: Tensor, extra: Dict[str, Tensor]) -> Tuple[Tensor, List[int]]:
        sizes: List[int] = []
        for i, layer in enumerate(self.layers):
            x = F.relu(layer(x)) if i % 2 == 0 else torch.tanh(layer(x))
            sizes.append(x.size(0))
        for key, value in extra.items():
            if key in ("skip", "ignore") or key.startswith("_"):
                continue
            elif value.dim() > 1 and not value.is_contiguous():
                value = value.contiguous()
            else:
                pass
            x = x + value[..., :4].sum(dim=-1, keepdim=True)
        while len(sizes) < 10:
            sizes += [sizes[-1] // 2 if sizes else 0]
        a, *rest = sizes
        b = -2 ** 2 + (a << 1 | 3 & ~a ^ 5) % 7
        c = [s * 2 for s in rest if s > 0]
        d = {str(k): v for k, v in zip(range(3), c)}
        with torch.no_grad():
            y = x.detach()[1:, ::2, None]
        assert b != 0, f"b was {b} and a was {a}"
        if x.numel() == 0:
            raise ValueError("empty input: " "nothing to do")
        z = x @ x.t() if x.dim() == 2 else x
        del d["0"]
        return helper(z, scale=math.pi / 2.5e-1, mask=None), sizes + [len(c), int(0x1F), 0b101, 0o17, 1_000]
