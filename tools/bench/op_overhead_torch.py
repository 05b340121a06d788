#!/usr/bin/env python3
"""PyTorch eager's side of runtime/examples/op_overhead.rs: the same ops on the same 1-element
inputs (float32 [1, 1], bool [1, 1]), 2 threads, N calls per repeat, median over repeats of
ns per call; prints `name ns` lines in the same order.

    ~/.cache/torch-venv/bin/python tools/bench/op_overhead_torch.py [N] [REPEATS]
"""

import sys
import time

import torch

torch.set_num_threads(2)

OPS = [
    ("add", lambda x, y, c: torch.add(x, y)),
    ("sub", lambda x, y, c: torch.sub(x, y)),
    ("mul", lambda x, y, c: torch.mul(x, y)),
    ("div", lambda x, y, c: torch.div(x, y)),
    ("add_scalar", lambda x, y, c: torch.add(x, 1.5)),
    ("relu", lambda x, y, c: torch.relu(x)),
    ("sigmoid", lambda x, y, c: torch.sigmoid(x)),
    ("tanh", lambda x, y, c: torch.tanh(x)),
    ("exp", lambda x, y, c: torch.exp(x)),
    ("neg", lambda x, y, c: torch.neg(x)),
    ("matmul", lambda x, y, c: torch.matmul(x, y)),
    ("sum", lambda x, y, c: torch.sum(x)),
    ("mean", lambda x, y, c: torch.mean(x)),
    ("cat", lambda x, y, c: torch.cat([x, y], 0)),
    ("view", lambda x, y, c: x.view(-1)),
    ("select", lambda x, y, c: torch.select(x, 0, 0)),
    ("unsqueeze", lambda x, y, c: torch.unsqueeze(x, 0)),
    ("transpose", lambda x, y, c: torch.transpose(x, 0, 1)),
    ("clone", lambda x, y, c: torch.clone(x)),
    ("where", lambda x, y, c: torch.where(c, x, y)),
    ("gt", lambda x, y, c: torch.gt(x, y)),
    ("to", lambda x, y, c: x.to(torch.float64)),
    ("item", lambda x, y, c: x.item()),
    ("softmax", lambda x, y, c: torch.softmax(x, -1)),
]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    x = torch.tensor([[0.5]])
    y = torch.tensor([[2.0]])
    c = torch.tensor([[True]])
    with torch.no_grad():
        for name, f in OPS:

            def one_repeat():
                t = time.perf_counter_ns()
                for _ in range(n):
                    f(x, y, c)
                return (time.perf_counter_ns() - t) / n

            one_repeat()  # warm-up
            samples = sorted(one_repeat() for _ in range(repeats))
            print(f"{name} {samples[len(samples) // 2]:.1f}")


if __name__ == "__main__":
    main()
