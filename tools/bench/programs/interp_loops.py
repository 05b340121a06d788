# Interpreter benchmarks that need a source file (calls, classes) or tensors: TorchScript that
# both sides compile, Ember with `ember-run FILE --entry NAME`, PyTorch with torch.jit.script
# (tools/bench/interp_per_call.py). stepper.pt is `Stepper` scripted and saved by
# `tools/bench/interp_per_call.py gen`.
from typing import List

import torch


def step(x: float, k: int) -> float:
    if k % 2 == 0:
        return x * 0.5 + 1.0
    return x * 1.5 - 0.25


def calls(n: int) -> float:
    acc = 0.0
    out: List[float] = []
    k = 0
    while k < n:
        acc = step(acc, k)
        if k % 64 == 0:
            out.append(acc)
        k += 1
    return acc + float(len(out))


class Stepper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 0.5
        self.offset = 0.25

    def step(self, x: float, k: int) -> float:
        return x * self.scale + float(k % 7) * self.offset

    def forward(self, n: int) -> float:
        acc = 0.0
        for k in range(n):
            acc = self.step(acc, k)
        return acc


def tensor_loop(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = x * 0.5
        x = x + 1.0
        x = torch.relu(x)
    return x
