#!/usr/bin/env python3
"""PyTorch's side of the JIT pointwise benchmark (tools/bench/jit_pointwise.sh): the same
groups as compiler/examples/jit_bench.rs in eager mode, under torch.jit.script (profiling
executor, after its warm-up runs) and under torch.compile (inductor's default mode, compiled in
the warm-up), on the same deterministic inputs, on as many threads as Ember's pool
(RAYON_NUM_THREADS, default 2). Prints `eager_median_us eager_min_us script_median_us
script_min_us compile_median_us compile_min_us` per call after warm-up.

    ~/.cache/torch-venv/bin/python tools/bench/jit_pointwise.py lstm|chain4|softmax|layernorm CALLS
"""

import os
import sys
import time
import warnings

import torch

warnings.filterwarnings("ignore")

torch.set_num_threads(int(os.environ.get("RAYON_NUM_THREADS", "2")))


def lstm(i, f, g, o, cx):
    ig = torch.sigmoid(i)
    fg = torch.sigmoid(f)
    cg = torch.tanh(g)
    og = torch.sigmoid(o)
    cy = fg * cx + ig * cg
    hy = og * torch.tanh(cy)
    return hy, cy


def chain4(x, y):
    return torch.relu(x * 1.5 + y) * x


def softmax(x, mask):
    return torch.softmax(x * 0.125 + mask, -1)


def layernorm(x, r, w, b):
    return torch.nn.functional.layer_norm(x + r, [768], w, b, 1e-12)


def inputs(n, shape):
    numel = 1
    for s in shape:
        numel *= s
    idx = torch.arange(numel, dtype=torch.int64)
    return [((idx * 7919 + k * 104729) % 4001).to(torch.float32).div(1000.0).sub(2.0).reshape(shape)
            for k in range(n)]


def timed(fn, args, calls):
    for _ in range(5):
        fn(*args)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    case, calls = sys.argv[1], int(sys.argv[2])
    fn, args = {
        "lstm": (lstm, inputs(5, [64, 2048])),
        "chain4": (chain4, inputs(2, [1 << 24])),
        "softmax": (softmax, inputs(1, [12, 128, 128]) + inputs(1, [1, 128])),
        "layernorm": (layernorm, inputs(2, [128, 768]) + inputs(2, [768])),
    }[case]
    with torch.no_grad():
        em, en = timed(fn, args, calls)
        scripted = torch.jit.script(fn)
        sm, sn = timed(scripted, args, calls)
        cm, cn = timed(torch.compile(fn), args, calls)
    print(f"{em:.1f}\t{en:.1f}\t{sm:.1f}\t{sn:.1f}\t{cm:.1f}\t{cn:.1f}")


if __name__ == "__main__":
    main()
