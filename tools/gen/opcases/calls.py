"""Function calls and forks: scripted functions calling scripted functions
(`prim::CallFunction`), with defaults, tuples, loops and nesting, and `torch.jit.fork` /
`torch.jit.wait`, errors raised inside callees and forked code included.

PyTorch's `str(graph)` names a callee (`prim::Constant[name="helper"]`) but does not show its
body; Ember's interpreter takes it from the constant's `attr::Subgraph` (see
compiler/src/passes/inline.rs). So each case's graph is rewritten with the callee's own scripted
graph attached to every function constant (recursively, fork bodies included), which prints as
`prim::Constant_0[name="helper"]()` plus a `with prim::Constant_0 = graph(...)` section.
"""

import os
from typing import List, Tuple

import torch

from .common import _GEN_DIR


def helper(x: torch.Tensor, scale: float = 2.0) -> torch.Tensor:
    return torch.relu(x) * scale


def pair(x: torch.Tensor, n: int) -> Tuple[torch.Tensor, int]:
    return x + n, n * 2


def clamp_sum(xs: List[int], hi: int) -> int:
    s = 0
    for v in xs:
        if v > hi:
            s += hi
        else:
            s += v
    return s


def square(n: int) -> int:
    return n * n


def sum_squares(n: int) -> int:
    s = 0
    for i in range(n):
        s += square(i)
    return s


def deep3(n: int) -> int:
    return sum_squares(n) + square(n)


def deep2(n: int) -> int:
    return deep3(n + 1) * 2


def bad(x: torch.Tensor, n: int) -> int:
    if n > 2:
        raise ValueError("n too big")
    return n + x.numel()


def call_nested(x: torch.Tensor) -> torch.Tensor:
    a, b = pair(helper(x), 3)
    return a * b


def call_defaults(x: torch.Tensor) -> torch.Tensor:
    return helper(x) + helper(x, 0.5) - helper(x, scale=3.0)


def call_tuple(x: torch.Tensor, n: int) -> Tuple[torch.Tensor, int]:
    t, m = pair(x, n)
    u, k = pair(t, m)
    return u, k + m


def call_in_loop(xs: List[int]) -> int:
    total = 0
    for i in range(len(xs)):
        total += clamp_sum(xs[: i + 1], 3)
    return total


def call_deep(n: int) -> int:
    return deep2(n) - sum_squares(n)


def call_raises(x: torch.Tensor, n: int) -> int:
    return bad(x, n) + 1


def fork_one(x: torch.Tensor) -> torch.Tensor:
    fut = torch.jit.fork(helper, x, 3.0)
    y = helper(x)
    return y + torch.jit.wait(fut)


def fork_many(x: torch.Tensor) -> torch.Tensor:
    futs: List[torch.jit.Future[torch.Tensor]] = []
    for i in range(4):
        futs.append(torch.jit.fork(helper, x, float(i)))
    s = torch.zeros_like(x)
    for f in futs:
        s = s + torch.jit.wait(f)
    return s


def fork_inner(x: torch.Tensor, n: int) -> torch.Tensor:
    fut = torch.jit.fork(helper, x, float(n))
    return torch.jit.wait(fut) + 1


def fork_nested(x: torch.Tensor) -> torch.Tensor:
    a = torch.jit.fork(fork_inner, x, 2)
    b = torch.jit.fork(fork_inner, x * 2, 3)
    return torch.jit.wait(a) * torch.jit.wait(b)


def fork_ints(n: int) -> int:
    futs = [torch.jit.fork(sum_squares, i) for i in range(n)]
    return sum([torch.jit.wait(f) for f in futs])


def fork_raises(x: torch.Tensor, n: int) -> int:
    f = torch.jit.fork(bad, x, n)
    return torch.jit.wait(f) + 1


def fork_unwaited(x: torch.Tensor) -> torch.Tensor:
    torch.jit.fork(helper, x, 5.0)
    return x + 1


def _attach(block, scope):
    """Attaches the callee's graph to every function constant of `block` (and of its nested
    blocks and fork bodies), recursively."""
    for n in block.nodes():
        if n.kind() == "prim::Constant" and n.output().type().kind() == "FunctionType":
            callee = torch.jit.script(scope[n.s("name")]).graph.copy()
            _attach(callee.block(), scope)
            n.g_("Subgraph", callee)
        if n.kind() == "prim::fork":
            body = n.g("Subgraph").copy()
            _attach(body.block(), scope)
            n.g_("Subgraph", body)
        for b in n.blocks():
            _attach(b, scope)


def _add(c, name, fn, *inputs):
    c.add(name, fn, *inputs)
    graph = torch.jit.script(fn).graph.copy()
    _attach(graph.block(), globals())
    text = str(graph).replace(_GEN_DIR + os.sep, "tools/gen/")
    with open(os.path.join(c.dir, name + ".ir"), "w") as f:
        f.write(text)


def cases(c):
    x = torch.tensor([[-1.0, 0.5, 2.0], [3.0, -0.25, 1.5]])
    _add(c, "call_nested", call_nested, x)
    _add(c, "call_defaults", call_defaults, x)
    _add(c, "call_tuple", call_tuple, x, 4)
    _add(c, "call_in_loop", call_in_loop, [5, 1, 4, 2, 7])
    _add(c, "call_deep", call_deep, 6)
    _add(c, "call_raises_ok", call_raises, x, 2)
    _add(c, "call_raises", call_raises, x, 5)
    _add(c, "fork_one", fork_one, x)
    _add(c, "fork_many", fork_many, x)
    _add(c, "fork_nested", fork_nested, x)
    _add(c, "fork_ints", fork_ints, 6)
    _add(c, "fork_raises_ok", fork_raises, x, 1)
    _add(c, "fork_raises", fork_raises, x, 3)
    _add(c, "fork_unwaited", fork_unwaited, x)
