#!/usr/bin/env python3
"""PyTorch's side of the per-call interpreter benchmark (tools/bench/interp_per_call.sh): one
program under torch.jit.script, called in a loop in this process after warm-up; prints the
median and the minimum time per call in microseconds and the result, which the driver checks
against Ember's.

    ~/.cache/torch-venv/bin/python tools/bench/interp_per_call.py run NAME CALLS
    ~/.cache/torch-venv/bin/python tools/bench/interp_per_call.py gen

`gen` writes the inputs Ember reads: tools/bench/programs/stepper.pt (the Stepper module,
scripted and saved) and x1.npy (the 1-element tensor of tensor_loop).
"""

import importlib.util
import os
import sys
import time
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
torch.set_num_threads(2)

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
sys.path.insert(0, HERE)
import scalar_programs  # noqa: E402


def load_loops():
    spec = importlib.util.spec_from_file_location("interp_loops", os.path.join(PROGRAMS, "interp_loops.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def x1():
    return torch.tensor([0.5], dtype=torch.float32)


def program(name):
    """The scripted callable and its arguments."""
    loops = load_loops()
    table = {
        "collatz_total": (lambda: torch.jit.script(scalar_programs.collatz_total), (3000,)),
        "fib_sum": (lambda: torch.jit.script(scalar_programs.fib_sum), (200000,)),
        "branchy": (lambda: torch.jit.script(scalar_programs.branchy), (200000,)),
        "mod_loop": (lambda: torch.jit.script(scalar_programs.mod_loop), (200000,)),
        "calls": (lambda: torch.jit.script(loops.calls), (100000,)),
        "module_methods": (lambda: torch.jit.script(loops.Stepper()), (100000,)),
        "tensor_loop": (lambda: torch.jit.script(loops.tensor_loop), (x1(), 10000)),
    }
    make, args = table[name]
    return make(), args


def fmt(v):
    if isinstance(v, torch.Tensor):
        return repr(v)
    return repr(v)


def main(argv):
    if argv[:1] == ["gen"]:
        loops = load_loops()
        torch.jit.script(loops.Stepper()).save(os.path.join(PROGRAMS, "stepper.pt"))
        np.save(os.path.join(PROGRAMS, "x1.npy"), x1().numpy())
        return
    _, name, calls = argv
    f, args = program(name)
    with torch.no_grad():
        # The profiling executor specializes on the first calls; time after it settled.
        for _ in range(5):
            result = f(*args)
        times = []
        for _ in range(int(calls)):
            t = time.perf_counter_ns()
            result = f(*args)
            times.append(time.perf_counter_ns() - t)
    times.sort()
    print(f"{times[len(times) // 2] / 1e3:.3f} {times[0] / 1e3:.3f} {fmt(result)}")


if __name__ == "__main__":
    main(sys.argv[1:])
