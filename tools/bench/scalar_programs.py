"""Scalar TorchScript programs for the interpreter benchmark: loops with integer arithmetic and
branches. `gen` writes each function's scripted graph to tools/bench/programs/NAME.ir (run with
torch installed); `run NAME N` runs it under torch.jit.script in this process, the PyTorch side
of the comparison (tools/bench/scalar_programs.sh)."""

import os
import sys


def collatz_total(n: int) -> int:
    total = 0
    for k in range(1, n + 1):
        m = k
        while m != 1:
            if m % 2 == 0:
                m = m // 2
            else:
                m = 3 * m + 1
            total += 1
    return total


def fib_sum(n: int) -> int:
    a = 0
    b = 1
    s = 0
    for i in range(n):
        c = (a + b) % 1000000007
        a = b
        b = c
        s = (s + a) % 1000000007
    return s


def branchy(n: int) -> int:
    acc = 0
    for i in range(n):
        if i % 3 == 0:
            acc += i
        elif i % 5 == 0:
            acc -= i // 2
        else:
            acc = acc ^ i
    return acc


def mod_loop(n: int) -> int:
    s = 0
    for i in range(n):
        if i % 3:
            s = (s * 31 + i) % 1000003
        else:
            s = (s + i * 7) % 1000003
    return s


def add_one(x: int) -> int:
    return x + 1


PROGRAMS = {f.__name__: f for f in (collatz_total, fib_sum, branchy, mod_loop, add_one)}


def main(argv):
    import torch

    if argv[:1] == ["gen"]:
        here = os.path.dirname(os.path.abspath(__file__))
        for name, fn in PROGRAMS.items():
            graph = str(torch.jit.script(fn).graph).replace(here + os.sep, "tools/bench/")
            with open(os.path.join(here, "programs", name + ".ir"), "w") as f:
                f.write(graph)
        return
    name, n = argv[1], int(argv[2])
    print(torch.jit.script(PROGRAMS[name])(n))


if __name__ == "__main__":
    main(sys.argv[1:])
