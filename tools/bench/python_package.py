#!/usr/bin/env python3
"""The Python package beside PyTorch (BENCHMARKS.md, "Python package"):

1. per-call overhead from Python on a 1-element tensor model (a scripted x + 1, saved by
   PyTorch): `ember.load(...)(x)` against `torch.jit.load(...)(x)`, median of many calls
   after warm-up, alternated;
2. `import ember` and `import torch` time, and resident memory after loading resnet18
   (target/pt-large/resnet18.pt) with each, in fresh processes.

    ~/.cache/torch-venv/bin/python tools/bench/python_package.py EMBER_MODULE_DIR

EMBER_MODULE_DIR holds the built extension (ember.abi3.so, e.g. from `maturin develop` or a
copy of target/release/libember.so); the torch venv supplies torch and numpy.
"""

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def median_call_us(f, x, n=20000):
    for _ in range(1000):
        f(x)
    times = []
    for _ in range(n):
        t = time.perf_counter_ns()
        f(x)
        times.append(time.perf_counter_ns() - t)
    times.sort()
    return times[n // 2] / 1000


def fresh(code, ember_dir):
    env = dict(os.environ, PYTHONPATH=ember_dir)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return out.stdout.strip()


def main():
    ember_dir = sys.argv[1]
    sys.path.insert(0, ember_dir)
    import numpy as np
    import torch

    import ember

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plus_one.pt")

        class PlusOne(torch.nn.Module):
            def forward(self, x):
                return x + 1

        torch.jit.script(PlusOne()).save(path)
        e, t = ember.load(path), torch.jit.load(path)
        xn, xt = np.ones(1, dtype=np.float32), torch.ones(1)
        rounds = []
        for _ in range(3):
            rounds.append((median_call_us(e, xn), median_call_us(t, xt)))
        best_e = min(r[0] for r in rounds)
        best_t = min(r[1] for r in rounds)
        print(f"per call, 1-element tensor: ember {best_e:.2f} us, torch.jit {best_t:.2f} us, ratio {best_t / best_e:.2f}x")
        print(f"  rounds (ember, torch): {', '.join(f'({a:.2f}, {b:.2f})' for a, b in rounds)}")

    resnet = os.path.join(ROOT, "target", "pt-large", "resnet18.pt")
    # Resident memory from /proc (VmRSS): ru_maxrss would count the parent's memory at fork.
    probe = (
        "import time; t = time.perf_counter(); import {m}; i = time.perf_counter() - t; "
        "{load}; rss = [l for l in open('/proc/self/status') if l.startswith('VmRSS:')][0].split()[1]; "
        "print(f'{{i * 1e3:.1f}} {{int(rss) / 1024:.0f}}')"
    )
    for name, load in [("ember", f"ember.load({resnet!r})"), ("torch", f"torch.jit.load({resnet!r})")]:
        runs = [fresh(probe.format(m=name, load=load if os.path.exists(resnet) else "pass"), ember_dir) for _ in range(5)]
        imports = sorted(float(r.split()[0]) for r in runs)
        rss = sorted(float(r.split()[1]) for r in runs)
        print(f"import {name}: {imports[2]:.1f} ms (median of 5); resident memory after loading resnet18: {rss[2]:.0f} MB")


if __name__ == "__main__":
    main()
