#!/usr/bin/env python3
"""PyTorch eager's side of runtime/examples/throughput.rs: the same float32 ops on the same
inputs ([n / 1024, 1024], n = 2^20 and 2^24), 2 threads, the median of REPEATS calls after a
warm-up pass over all ops, in ms; prints `2^k name ms` lines in the same order.

    ~/.cache/torch-venv/bin/python tools/bench/throughput_torch.py [REPEATS]
"""

import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(2)

OPS = [
    ("add", lambda x, y: torch.add(x, y)),
    ("mul", lambda x, y: torch.mul(x, y)),
    ("relu", lambda x, y: torch.relu(x)),
    ("exp", lambda x, y: torch.exp(x)),
    ("sigmoid", lambda x, y: torch.sigmoid(x)),
    ("tanh", lambda x, y: torch.tanh(x)),
    ("gelu", lambda x, y: F.gelu(x)),
    ("sum", lambda x, y: torch.sum(x)),
    ("mean", lambda x, y: torch.mean(x)),
    ("amax", lambda x, y: torch.amax(x)),
    ("var", lambda x, y: torch.var(x)),
    ("softmax", lambda x, y: torch.softmax(x, -1)),
]


def filled(n, scale, shift):
    i = torch.arange(n, dtype=torch.int64)
    return (((i * 7919) % 1000).float() / 1000.0 * scale + shift).view(n // 1024, 1024)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    with torch.no_grad():
        for log2 in [20, 24]:
            n = 1 << log2
            x, y = filled(n, 8.0, -4.0), filled(n, 1.0, 0.5)
            # One untimed pass over every op first, as the Rust side does.
            for _, f in OPS:
                f(x, y)
            for name, f in OPS:

                def call():
                    t = time.perf_counter()
                    out = f(x, y)
                    ms = (time.perf_counter() - t) * 1e3
                    del out
                    return ms

                call()
                samples = sorted(call() for _ in range(repeats))
                print(f"2^{log2} {name} {samples[len(samples) // 2]:.4f}")


if __name__ == "__main__":
    main()
