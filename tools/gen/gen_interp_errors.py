#!/usr/bin/env python3
"""Generates test/interp/errors/ with real PyTorch: TorchScript programs that raise inside
loops, branches and calls, with where PyTorch says the error happened. Read by
compiler/tests/interp_errors.rs, which runs each program in Ember's interpreter and checks the
message and every frame of the traceback (function, line and column of the failing node).

    ~/.cache/torch-venv/bin/python tools/gen/gen_interp_errors.py

For a case NAME this writes NAME.py (the source; the entry is its last top-level def) and
NAME.expected:
    args ARG...                 the entry's arguments (ints, floats, True/False)
    message TEXT                PyTorch's message (the last line of its error, without the
                                `RuntimeError: ` of an operator's error or the `builtins.` of
                                a raised exception's class)
    frame FUNCTION LINE COLUMN  a frame of PyTorch's TorchScript traceback, outermost first:
                                the 1-based line and 0-based column of the failing expression
                                (where the `~~~` marker under it starts). PyTorch's executor
                                inlines calls, so its innermost frame may carry a callee's
                                location under the caller's name.
"""

import importlib.util
import os
import re
import sys
import textwrap
import warnings

import torch

warnings.filterwarnings("ignore")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(REPO, "test", "interp", "errors")

HEADER = "from typing import List, Tuple\n\nimport torch\n\n\n"

CASES = [
    (
        "floordiv_by_zero_in_for_branch",
        """
        def f(n: int, d: int) -> int:
            s = 0
            for i in range(n):
                if i % 2 == 0:
                    s += 3
                else:
                    s += 10 // (d - i)
            return s
        """,
        (6, 3),
    ),
    (
        "floordiv_by_zero_in_while",
        """
        def f(n: int) -> int:
            k = n
            total = 0
            while k > -5:
                total = total + 100 // k
                k -= 1
            return total
        """,
        (4,),
    ),
    (
        "raise_in_nested_loop",
        """
        def f(n: int) -> int:
            s = 0
            for i in range(n):
                j = 0
                while j < i:
                    if i * j == 6:
                        raise ValueError("i * j is 6")
                    s += j
                    j += 1
            return s
        """,
        (5,),
    ),
    (
        "list_index_in_loop",
        """
        def f(n: int) -> int:
            xs: List[int] = [1, 2, 3]
            s = 0
            for i in range(n):
                if i > 1:
                    s = s + xs[i]
            return s
        """,
        (5,),
    ),
    (
        "assert_in_branch",
        """
        def f(x: float, n: int) -> float:
            for i in range(n):
                if x > 2.0:
                    assert x < 3.0, "x left the range"
                x = x * 1.5
            return x
        """,
        (1.0, 6),
    ),
    (
        "error_in_called_function",
        """
        def ratio(a: int, b: int) -> int:
            if a > b:
                return a // (b - 2)
            return b // a


        def f(n: int) -> int:
            s = 0
            for i in range(1, n):
                s += ratio(i, 2)
            return s
        """,
        (5,),
    ),
    (
        "error_two_calls_deep",
        """
        def inner(x: float, k: int) -> float:
            if k == 3:
                raise RuntimeError("k reached 3")
            return x * 0.5


        def middle(x: float, k: int) -> float:
            y = x + 1.0
            return inner(y, k)


        def f(n: int) -> float:
            acc = 0.0
            k = 0
            while k < n:
                acc = middle(acc, k)
                k += 1
            return acc
        """,
        (10,),
    ),
    (
        "error_in_method",
        """
        class Acc:
            def __init__(self, k: int):
                self.k = k

            def step(self, x: int) -> int:
                return x // (self.k - x)


        def f(n: int) -> int:
            a = Acc(3)
            s = 0
            for i in range(n):
                s += a.step(i)
            return s
        """,
        (5,),
    ),
]


def load(name, path):
    spec = importlib.util.spec_from_file_location(f"interp_errors_{name}", path)
    module = importlib.util.module_from_spec(spec)
    # Classes are compiled from their source, which inspect finds through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def frames(message):
    """(function, line, column) of each frame of a TorchScript traceback."""
    out = []
    lines = message.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'\s*File "(.*)", line (\d+), in (\S+)', line)
        if not m:
            continue
        for marker in lines[i + 1 :]:
            if "<--- HERE" in marker:
                out.append((m.group(3), int(m.group(2)), marker.index("~")))
                break
    return out


def last_line(message):
    """The message as the interpreter raises it: `RuntimeError: ` is how PyTorch wraps an
    operator's error, `builtins.` how it names the class of a raised exception."""
    line = message.strip().splitlines()[-1].strip()
    for prefix in ("builtins.", "RuntimeError: "):
        if line.startswith(prefix):
            return line[len(prefix) :]
    return line


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    for name, source, args in CASES:
        path = os.path.join(OUT, name + ".py")
        with open(path, "w") as f:
            f.write(HEADER + textwrap.dedent(source).strip("\n") + "\n")
        module = load(name, path)
        entry = [n for n in re.findall(r"^def (\w+)", open(path).read(), re.M)][-1]
        scripted = torch.jit.script(getattr(module, entry))
        try:
            scripted(*args)
        except Exception as e:
            message = str(e)
        else:
            sys.exit(f"{name}: PyTorch raised nothing")
        expected = ["args " + " ".join(repr(a) for a in args), "message " + last_line(message)]
        for fn, line, col in frames(message):
            expected.append(f"frame {fn} {line} {col}")
        with open(os.path.join(OUT, name + ".expected"), "w") as f:
            f.write("\n".join(expected) + "\n")
        print(name, expected[1:])


if __name__ == "__main__":
    main()
