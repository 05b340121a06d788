#!/usr/bin/env python3
"""Generates test/calls/*.unit with real PyTorch: small TorchScript programs made of several
functions, classes and modules (what `prim::CallFunction`, `prim::CallMethod`,
`prim::CreateObject`, `prim::GetAttr` and `prim::SetAttr` need a compilation unit for), with
PyTorch's results. Read by runtime/tests/calls.rs.

    ~/.cache/torch-venv/bin/python tools/gen/gen_call_units.py

A .unit file is line-based:
    class QUALNAME [module]          a class of the unit (`module`: an nn.Module)
    attr NAME : TYPE [parameter|buffer]   an attribute slot of the last class
    method QUALNAME                  a method of the last class; its graph text follows
    function NAME                    a function; its graph text follows
    object NAME CLASS                an instance of CLASS (for module cases)
    set NAME.ATTR = VALUE            VALUE: another object's NAME, `tensor(f, f, ...)` (1-d
                                     float32), or an int
    run FUNCTION ARG...              call FUNCTION (or `NAME.METHOD` of an object) with int
                                     ARGs, `tensor(...)` or object names
    expect REPR                      PyTorch's result, as Ember's `repr` prints it
    error MESSAGE                    or the message PyTorch raised
Graph text is `str(graph)` of the scripted function (calls are not inlined), with the
generator's path made repo-relative.
"""

import os
import sys
from typing import Any, List, Tuple

import torch

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(REPO, "test", "calls")
HERE = os.path.dirname(os.path.abspath(__file__))


def graph_text(graph):
    return str(graph).replace(HERE + os.sep, "tools/gen/").rstrip("\n")


def fn_graph(qualname):
    f = torch.jit._state._python_cu.find_function(qualname)
    return f.graph


# --- classes ---------------------------------------------------------------------------------


@torch.jit.script
class Counter:
    def __init__(self, start: int):
        self.n = start
        self.hist: List[int] = []

    def bump(self, k: int) -> int:
        self.n += k
        self.hist.append(self.n)
        return self.n

    def check(self, k: int) -> int:
        if k < 0:
            raise ValueError("negative step")
        return self.bump(k)


def use_counter(k: int) -> int:
    c = Counter(k)
    c.bump(2)
    return c.bump(3) + len(c.hist)


def counter_steps(k: int) -> int:
    c = Counter(0)
    for i in range(3):
        c.check(k - i)
    return c.n


@torch.jit.script
class Vec2:
    def __init__(self, x: float, y: float):
        self.x = x
        self.y = y

    def dot(self, o: "Vec2") -> float:
        return self.x * o.x + self.y * o.y

    def norm2(self) -> float:
        return self.dot(self)

    def scaled(self, k: float) -> "Vec2":
        return Vec2(self.x * k, self.y * k)


def use_vec(a: float, b: float) -> Tuple[float, bool, bool]:
    v = Vec2(a, b)
    w = v.scaled(2.0)
    u = v
    return w.norm2() + v.dot(w), u is v, w is v


@torch.jit.script
class Timer:
    def __init__(self):
        self.depth = 0

    def __enter__(self) -> int:
        self.depth += 1
        return self.depth * 10

    def __exit__(self, kind: Any, value: Any, tb: Any):
        self.depth += 100


def use_timer(x: int) -> int:
    t = Timer()
    with t as d:
        x = x + d
    return x + t.depth


# --- modules ---------------------------------------------------------------------------------


class Sub(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))

    def forward(self, x):
        return x * self.w


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.register_buffer("b", torch.tensor([0.25, 0.5, 0.75]))
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.sub(x) + self.b + self.calls


@torch.jit.interface
class OneOp(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Neg(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return -x


class Twice(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if bool(x.sum() < 0):
            raise RuntimeError("negative sum")
        return x * 2


class Holder(torch.nn.Module):
    op: OneOp

    def __init__(self, op):
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op.forward(x) + 1


def tensor_text(t):
    return "tensor(" + ", ".join(repr(float(v)) for v in t.tolist()) + ")"


def ember_repr(v):
    """Python's repr, as Ember's `repr` prints results."""
    if isinstance(v, torch.Tensor):
        return repr(v.detach())
    if isinstance(v, tuple):
        return "(" + ", ".join(ember_repr(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


class Unit:
    def __init__(self, name, doc):
        self.name = name
        self.lines = [f"# {doc}"]

    def cls(self, qualname, attrs, methods, module=False):
        self.lines.append(f"class {qualname}" + (" module" if module else ""))
        for a in attrs:
            self.lines.append(f"attr {a}")
        for m in methods:
            self.lines.append(f"method {qualname}.{m}")
            self.lines.append(graph_text(fn_graph(f"{qualname}.{m}")))

    def module_class(self, scripted, attrs):
        """A scripted module's class: its attributes and forward."""
        ty = scripted._c._type()
        self.lines.append(f"class {ty.qualified_name()} module")
        for a in attrs:
            self.lines.append(f"attr {a}")
        self.lines.append(f"method {ty.qualified_name()}.forward")
        self.lines.append(graph_text(scripted.forward.graph))

    def function(self, fn):
        self.lines.append(f"function {fn.__name__}")
        self.lines.append(graph_text(torch.jit.script(fn).graph))

    def run(self, what, args, call):
        self.lines.append(f"run {what} " + " ".join(args))
        try:
            self.lines.append(f"expect {ember_repr(call())}")
        except Exception as e:
            lines = str(e).strip().splitlines()
            self.lines.append(f"error {lines[-1].split(': ', 1)[-1]}")

    def write(self):
        with open(os.path.join(OUT, self.name + ".unit"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".unit"):
            os.remove(os.path.join(OUT, f))

    u = Unit("counter", "a class built by prim::CreateObject + __init__, methods that set attributes")
    torch.jit.script(use_counter)
    torch.jit.script(counter_steps)
    u.cls("__torch__.Counter", ["n : int", "hist : int[]"], ["__init__", "bump", "check"])
    u.function(use_counter)
    u.function(counter_steps)
    sf = torch.jit.script(use_counter)
    u.run("use_counter", ["5"], lambda: sf(5))
    sc = torch.jit.script(counter_steps)
    u.run("counter_steps", ["2"], lambda: sc(2))
    u.run("counter_steps", ["1"], lambda: sc(1))
    u.write()

    u = Unit("vec2", "methods calling methods and constructors, `is` on objects")
    sv = torch.jit.script(use_vec)
    u.cls("__torch__.Vec2", ["x : float", "y : float"], ["__init__", "dot", "norm2", "scaled"])
    u.function(use_vec)
    u.run("use_vec", ["1.5", "-2.0"], lambda: sv(1.5, -2.0))
    u.write()

    u = Unit("context", "a `with` block: prim::Enter and prim::Exit call __enter__ and __exit__")
    st = torch.jit.script(use_timer)
    u.cls("__torch__.Timer", ["depth : int"], ["__init__", "__enter__", "__exit__"])
    u.function(use_timer)
    u.run("use_timer", ["7"], lambda: st(7))
    u.write()

    u = Unit("module", "a module with a submodule, a parameter, a buffer and an int attribute")
    torch.manual_seed(0)
    m = torch.jit.script(Outer())
    u.module_class(m.sub, ["w : Tensor parameter"])
    u.module_class(m, ["training : bool", "sub : " + m.sub._c._type().qualified_name(),
                       "b : Tensor buffer", "calls : int"])
    u.lines.append(f"object sub {m.sub._c._type().qualified_name()}")
    u.lines.append(f"set sub.w = {tensor_text(m.sub.w)}")
    u.lines.append(f"object m {m._c._type().qualified_name()}")
    u.lines.append("set m.sub = sub")
    u.lines.append(f"set m.b = {tensor_text(m.b)}")
    u.lines.append("set m.calls = 0")
    x = torch.tensor([2.0, 4.0, -1.0])
    u.run("m.forward", [tensor_text(x)], lambda: m(x))
    u.run("m.forward", [tensor_text(x)], lambda: m(x))
    u.write()

    u = Unit("interface", "calls through a module interface dispatch on the runtime object")
    neg, twice = torch.jit.script(Neg()), torch.jit.script(Twice())
    h1 = torch.jit.script(Holder(Neg()))
    h2 = torch.jit.script(Holder(Twice()))
    u.module_class(neg, ["training : bool"])
    u.module_class(twice, ["training : bool"])
    iface = "__torch__.OneOp"
    hq = h1._c._type().qualified_name()
    h2q = h2._c._type().qualified_name()
    u.module_class(h1, ["training : bool", f"op : {iface}"])
    assert h2q == hq, "both holders share one class"
    u.lines.append(f"object neg {neg._c._type().qualified_name()}")
    u.lines.append(f"object twice {twice._c._type().qualified_name()}")
    u.lines.append(f"object h1 {hq}")
    u.lines.append("set h1.op = neg")
    u.lines.append(f"object h2 {h2q}")
    u.lines.append("set h2.op = twice")
    x = torch.tensor([1.0, -3.0, 0.5])
    u.run("h1.forward", [tensor_text(x)], lambda: h1(x))
    y = torch.tensor([1.0, 3.0, 0.5])
    u.run("h2.forward", [tensor_text(y)], lambda: h2(y))
    u.run("h2.forward", [tensor_text(x)], lambda: h2(x))
    u.write()
    print(f"wrote {len([f for f in os.listdir(OUT) if f.endswith('.unit')])} units to {OUT}")


if __name__ == "__main__":
    sys.exit(main())
