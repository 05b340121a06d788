#!/usr/bin/env python3
"""Writes test/ember-run/Inputs/dead_branch.pt with real PyTorch (run with the torch venv:
~/.cache/torch-venv/bin/python tools/gen/gen_missing_op_inputs.py): a scripted module whose
forward calls, only when its flag is set, a submodule that calls an operator Ember has no
implementation of (aten::histc). The lenient-loading lit test (test/ember-run/missing-ops.test)
loads it, runs the path that never reaches the operator, and the one that does."""
import os

import torch
import torch.nn as nn
from torch import Tensor

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "ember-run", "Inputs")


class Histogram(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return torch.histc(x, bins=4)


class DeadBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.histogram = Histogram()

    def forward(self, x: Tensor, histogram: bool = False) -> Tensor:
        if histogram:
            return self.histogram(x)
        return self.fc(x)


def main():
    torch.manual_seed(0)
    m = torch.jit.script(DeadBranch())
    torch.jit.save(m, os.path.join(OUT, "dead_branch.pt"))
    x = torch.tensor([[1.5, -2.0, 3.25], [0.0, 4.0, 5.0]])
    print("forward(x):", m(x))
    print("forward(x, True):", m(x, True))


if __name__ == "__main__":
    main()
