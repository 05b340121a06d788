#!/usr/bin/env python3
"""PyTorch eager's side of runtime/examples/bench_resample.rs: the same cases with the same
inputs on THREADS cores, best of REPEATS calls after a warm-up, in ms.

    ~/.cache/torch-venv/bin/python tools/bench/resample_torch.py [REPEATS] [THREADS]
"""

import sys
import time

import torch
import torchvision  # noqa: F401  (torch.ops.torchvision)

REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
ops = torch.ops


def u(i, salt):
    return ((i + salt) * 7919 % 1000).float() / 1000.0


def inp(case, k, shape):
    """The inputs of bench_resample.rs, element for element."""
    i = torch.arange(int(torch.tensor(shape).prod()), dtype=torch.int64)
    if case.startswith("grid") and k == 1:
        v = u(i, 3) * 2.2 - 1.1
    elif case.startswith("roi") and k == 1:
        m = i % 5
        v = torch.where(m == 0, 0.0, torch.where(m <= 2, u(i, 1) * 150.0, u(i - 2, 1) * 150.0 + 5.0 + u(i, 7) * 40.0))
    elif case.startswith("nms") and k == 0:
        m = i % 4
        v = torch.where(m <= 1, u(i, 1) * 180.0, u(i - 2, 1) * 180.0 + 4.0 + u(i, 5) * 30.0)
    else:
        v = u(i, k) - 0.5
    return v.reshape(shape).contiguous()


CASES = [
    ("upsample_nearest2d 1x256x50x50 -> 100x100", [[1, 256, 50, 50]], lambda a: ops.aten.upsample_nearest2d(a, [100, 100], None, None)),
    ("upsample_bilinear2d 1x21x16x16 -> 128x128", [[1, 21, 16, 16]], lambda a: ops.aten.upsample_bilinear2d(a, [128, 128], False, None, None)),
    ("upsample_bilinear2d 1x256x32x32 -> 64x64", [[1, 256, 32, 32]], lambda a: ops.aten.upsample_bilinear2d(a, [64, 64], False, None, None)),
    ("upsample_bicubic2d 1x3x224x224 -> 320x320", [[1, 3, 224, 224]], lambda a: ops.aten.upsample_bicubic2d(a, [320, 320], False, None, None)),
    ("_upsample_bilinear2d_aa 1x3x512x512 -> 224x224", [[1, 3, 512, 512]], lambda a: ops.aten._upsample_bilinear2d_aa(a, [224, 224], False, None, None)),
    ("upsample_trilinear3d 1x16x8x28x28 -> 16x56x56", [[1, 16, 8, 28, 28]], lambda a: ops.aten.upsample_trilinear3d(a, [16, 56, 56], False, None, None, None)),
    ("grid_sampler bilinear 1x64x64x64, grid 64x64", [[1, 64, 64, 64], [1, 64, 64, 2]], lambda a, b: torch.grid_sampler(a, b, 0, 0, False)),
    ("grid_sampler nearest 1x64x64x64, grid 64x64", [[1, 64, 64, 64], [1, 64, 64, 2]], lambda a, b: torch.grid_sampler(a, b, 1, 0, False)),
    ("roi_align 1x256x50x50, 512 rois, 7x7, sampling 2", [[1, 256, 50, 50], [512, 5]], lambda a, b: ops.torchvision.roi_align(a, b, 0.25, 7, 7, 2, False)),
    ("nms 2000 boxes, iou 0.7", [[2000, 4], [2000]], lambda a, b: ops.torchvision.nms(a, b, 0.7)),
]

with torch.no_grad():
    for name, shapes, f in CASES:
        args = [inp(name, k, s) for k, s in enumerate(shapes)]
        f(*args)
        best = float("inf")
        for _ in range(REPEATS):
            t = time.perf_counter()
            f(*args)
            best = min(best, time.perf_counter() - t)
        print(f"{name}: {best * 1e3:.3f} ms")
