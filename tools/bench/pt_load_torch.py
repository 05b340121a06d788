"""torch.jit.load timed like compiler/examples/pt_load_time.rs: `pt_load_torch.py N FILE...`
prints, per file, name, median and fastest load in ms (after one warm-up load)."""
import os
import sys
import time
import warnings

import torch

warnings.filterwarnings("ignore")
n = int(sys.argv[1])
for path in sys.argv[2:]:
    torch.jit.load(path)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        m = torch.jit.load(path)
        times.append((time.perf_counter() - start) * 1e3)
        del m
    times.sort()
    name = os.path.splitext(os.path.basename(path))[0]
    print(f"{name}\t{times[n // 2]:.1f}\t{times[0]:.1f}")
