#!/usr/bin/env python3
"""Archives of test/pt/ whose code defines types the loader must resolve (run with the torch
venv: ~/.cache/torch-venv/bin/python tools/gen/gen_pt_types.py): a model containing scripted
nn.LSTM and nn.GRU (their code/ folder defines the NamedTuple
__torch__.torch.nn.utils.rnn.PackedSequence of their overloaded forwards), a user NamedTuple taken, built and returned, and user Enums (an int
Enum and a str-mixin Enum as timm's Format) compared with ==, !=, torch.eq and torch.ne and
used as dict keys through .name and .value. Writes NAME.pt and NAME.npz with
tools/gen/gen_pt_corpus.py's save (they are not in SUMMARY.json)."""
import enum
import os
import sys
from typing import Dict, List, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pt_corpus import save, seed  # noqa: E402


class Tagger(nn.Module):
    """A model containing scripted recurrent modules: embedding, LSTM, GRU, linear."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True)
        self.gru = nn.GRU(6, 5, bidirectional=True, batch_first=True)
        self.out = nn.Linear(10, 3)

    def forward(self, x: Tensor) -> Tensor:
        y, _ = self.lstm(x)
        z, h = self.gru(y)
        return self.out(z) + h.sum()


class Stats(NamedTuple):
    mean: Tensor
    spread: Tensor
    count: int


class Box(NamedTuple):
    lo: Tensor
    hi: Tensor


def summarize(x: Tensor) -> Stats:
    return Stats(x.mean(0), x.max(0)[0] - x.min(0)[0], x.size(0))


class NamedTuples(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Linear(3, 3)

    def widen(self, b: Box, by: float) -> Box:
        return Box(b.lo - by, hi=b.hi + by)

    def forward(self, x: Tensor) -> Tuple[Stats, Box]:
        s = summarize(self.scale(x))
        b = self.widen(Box(s.mean - s.spread, s.mean + s.spread), 0.5)
        lo, hi = b
        return Stats(s.mean, s.spread * s.count, s.count + 1), Box(lo, hi)


class Format(str, enum.Enum):
    NCHW = "NCHW"
    NHWC = "NHWC"


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def to_format(x: Tensor, fmt: Format) -> Tensor:
    if torch.eq(fmt, Format.NHWC):
        return x.permute(0, 2, 3, 1)
    return x


class Enums(nn.Module):
    fmt: Format
    color: Color

    def __init__(self):
        super().__init__()
        self.fmt = Format.NHWC
        self.color = Color.GREEN

    def forward(self, x: Tensor) -> Tuple[Tensor, int, int, int]:
        if torch.ne(self.fmt, Format.NCHW):
            x = to_format(x, self.fmt)
        flags = [self.fmt == Format.NHWC, self.fmt != Format.NHWC, torch.eq(self.color, Color.RED),
                 torch.ne(self.color, Color.RED), self.color == Color.GREEN]
        bits = 0
        for i, f in enumerate(flags):
            if f:
                bits += 1 << i
        by_name = {Color.RED.name: Color.RED.value, self.color.name: self.color.value}
        by_value = {Color.RED.value: Format.NCHW.value, self.color.value: self.fmt.value}
        return x * by_name[self.color.name], bits, len(by_value[self.color.value]), len(by_name)


def main():
    seed(22)
    save("rnn_tagger_scripted", torch.jit.script(Tagger().eval()), [torch.randn(2, 5, 4)])
    seed(23)
    save("namedtuple_outputs", torch.jit.script(NamedTuples().eval()), [torch.randn(4, 3)])
    seed(24)
    save("enum_attributes", torch.jit.script(Enums().eval()), [torch.randn(1, 2, 3, 4)])


if __name__ == "__main__":
    main()
