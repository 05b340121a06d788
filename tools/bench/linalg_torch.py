#!/usr/bin/env python3
"""PyTorch eager's side of runtime/examples/bench_linalg.rs: the same products on the same
cores (2 threads), best of N after a warm-up.

    ~/.cache/torch-venv/bin/python tools/bench/linalg_torch.py
"""

import time

import torch
import torch.nn.functional as F

torch.set_num_threads(2)


def best(reps, f):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


with torch.no_grad():
    for n in [512, 2048]:
        a, b = torch.randn(n, n), torch.randn(n, n)
        t = best(3 if n > 1000 else 20, lambda: torch.mm(a, b))
        print(f"matmul {n}^3: {t * 1e3:.3f} ms, {2 * n**3 / t / 1e9:.1f} GFLOP/s")
    for c, hw, stride in [(64, 56, 1), (128, 28, 1), (256, 14, 1), (64, 56, 2)]:
        oc = c * 2 if stride == 2 else c
        x, w = torch.randn(1, c, hw, hw), torch.randn(oc, c, 3, 3)
        t = best(20, lambda: F.conv2d(x, w, None, stride, 1))
        out = hw // stride
        flops = 2 * oc * out * out * c * 9
        print(
            f"conv2d 1x{c}x{hw}x{hw} * {oc}x{c}x3x3 stride {stride} pad 1: {t * 1e3:.3f} ms, {flops / t / 1e9:.1f} GFLOP/s"
        )
