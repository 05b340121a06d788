"""Case groups of the script corpus (tools/gen/gen_script_corpus.py); inputs helpers."""

import torch


def t(*shape, scale=1.0):
    """A small float32 tensor with deterministic, varied values in [-1, 1) * scale."""
    n = 1
    for s in shape:
        n *= s
    x = (torch.arange(n, dtype=torch.float64) * 0.7317 + 0.25) % 2.0 - 1.0
    return (x * scale).to(torch.float32).reshape(shape)


def ti(*shape, mod=7):
    """A small int64 tensor with deterministic values in [-mod//2, mod - mod//2)."""
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n) * 5 + 3) % mod - mod // 2).reshape(shape)
