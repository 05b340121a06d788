#!/usr/bin/env python3
"""PyTorch eager's side of runtime/examples/bench_linalg.rs: the same products on the same
cores (2 threads), best of N after a warm-up.

    ~/.cache/torch-venv/bin/python tools/bench/linalg_torch.py [conv] [THREADS]

`conv` times the convolutions only; THREADS (default 2) is torch.set_num_threads.
"""

import sys
import time

import torch
import torch.nn.functional as F

CONV_ONLY = "conv" in sys.argv[1:]
THREADS = int(next((a for a in sys.argv[1:] if a.isdigit()), "2"))
torch.set_num_threads(THREADS)

# ResNet-18's convolutions, as in runtime/examples/bench_linalg.rs:
# (in channels, spatial size, out channels, kernel, stride, padding).
CONVS = [
    (64, 56, 64, 3, 1, 1),
    (128, 28, 128, 3, 1, 1),
    (256, 14, 256, 3, 1, 1),
    (64, 56, 128, 3, 2, 1),
    (3, 224, 64, 7, 2, 3),
    (64, 56, 128, 1, 2, 0),
    (128, 28, 256, 3, 2, 1),
    (128, 28, 256, 1, 2, 0),
    (256, 14, 512, 3, 2, 1),
    (256, 14, 512, 1, 2, 0),
    (512, 7, 512, 3, 1, 1),
]

# Depthwise convolutions of MobileNetV3-small and EfficientNet-B0, as in bench_linalg.rs:
# (channels, spatial size, kernel, stride).
DWCONVS = [
    (16, 112, 3, 2),
    (72, 56, 3, 2),
    (88, 28, 3, 1),
    (96, 28, 5, 2),
    (240, 14, 5, 1),
    (576, 7, 5, 1),
    (32, 112, 3, 1),
    (144, 56, 3, 1),
    (240, 28, 5, 1),
    (480, 14, 3, 1),
    (1152, 7, 5, 1),
]


def best(reps, f):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


with torch.no_grad():
    for n in [] if CONV_ONLY else [512, 2048]:
        a, b = torch.randn(n, n), torch.randn(n, n)
        t = best(3 if n > 1000 else 20, lambda: torch.mm(a, b))
        print(f"matmul {n}^3: {t * 1e3:.3f} ms, {2 * n**3 / t / 1e9:.1f} GFLOP/s")
    for c, hw, oc, k, stride, pad in CONVS:
        x, w = torch.randn(1, c, hw, hw), torch.randn(oc, c, k, k)
        t = best(20, lambda: F.conv2d(x, w, None, stride, pad))
        out = (hw + 2 * pad - k) // stride + 1
        flops = 2 * oc * out * out * c * k * k
        print(
            f"conv2d 1x{c}x{hw}x{hw} * {oc}x{c}x{k}x{k} stride {stride} pad {pad}: {t * 1e3:.3f} ms, {flops / t / 1e9:.1f} GFLOP/s"
        )
    for c, hw, k, stride in DWCONVS:
        x, w = torch.randn(1, c, hw, hw), torch.randn(c, 1, k, k)
        pad = k // 2
        t = best(50, lambda: F.conv2d(x, w, None, stride, pad, 1, c))
        out = (hw + 2 * pad - k) // stride + 1
        flops = 2 * c * out * out * k * k
        print(
            f"depthwise 1x{c}x{hw}x{hw} {k}x{k} stride {stride}: {t * 1e3:.3f} ms, {flops / t / 1e9:.1f} GFLOP/s"
        )
