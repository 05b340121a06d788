#!/usr/bin/env python3
"""Archives of the .pt corpus that exercise freezing's inference rewrites (test/pt/freeze_*):
a convolution scaled and shifted per channel by constants (folded into its weight and bias),
a linear layer followed by 1-d batch norm on a matrix, convolutions followed by batch norm and
activations with residual adds (the epilogues the fused kernels run), dropout in eval mode.
Random weights with fixed seeds; inputs and PyTorch's outputs beside each archive, as
tools/gen/gen_pt_corpus.py writes them. Then run tools/gen/gen_frozen_reference.py.

    ~/.cache/torch-venv/bin/python tools/gen/gen_freeze_cases.py
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pt_corpus import OUT, save, seed  # noqa: E402


class ConvArith(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.register_buffer("scale", torch.rand(6, 1, 1) + 0.5)
        self.register_buffer("shift", torch.randn(6, 1, 1))

    def forward(self, x):
        y = self.conv(x) * self.scale
        y = y + self.shift
        return torch.relu(y / 2.0)


class LinearBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)
        self.bn = nn.BatchNorm1d(5)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        return self.drop(self.bn(self.fc(x)))


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.conv3 = nn.Conv2d(4, 8, 1)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = F.relu(y + x)
        z = F.hardtanh(self.conv3(y), -0.5, 0.5)
        return F.hardswish(z) + F.silu(self.conv3(y))


def randomize_stats(module):
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)


def main():
    cases = [
        ("freeze_conv_arith", ConvArith, [(2, 3, 7, 7)]),
        ("freeze_linear_bn", LinearBn, [(4, 8)]),
        ("freeze_residual", Residual, [(1, 4, 6, 6)]),
    ]
    for i, (name, cls, shapes) in enumerate(cases):
        seed(100 + i)
        module = cls()
        randomize_stats(module)
        module = torch.jit.script(module.eval())
        inputs = [torch.randn(*s) for s in shapes]
        save(name, module, inputs, out_dir=OUT)


if __name__ == "__main__":
    main()
