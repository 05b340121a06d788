"""Writes compiler/tests/data/torch_elementwise/: graphs of elementwise ops with inputs and the
outputs real PyTorch computes for them, for compiler/tests/torch_reference.rs.

    ~/.cache/torch-venv/bin/python tools/gen/codegen_fixtures.py

Each case is NAME.ir (the graph PyTorch prints after complete shape analysis, or after its
TensorExpr fuser pass for the *_group cases) and NAME.values, one line per kernel argument in
order and then per output:

    in NAME tensor D0xD1 HEX HEX ...      float32 bit patterns, row major (0-dim: shape "-")
    in NAME float VALUE                   a TorchScript float (repr, exact)
    in NAME int VALUE
    out tensor D0xD1 HEX HEX ...
"""

import math
import os
import struct

import torch

torch._C._jit_override_can_fuse_on_cpu(True)
torch._C._jit_set_texpr_fuser_enabled(True)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "compiler", "tests", "data", "torch_elementwise")

SPECIAL = [-0.0, 0.0, math.nan, -1.0, 2.0, math.inf, -math.inf, -100.0, 88.0, 1e-40,
           90.0, -90.0, 1e-3, -1e-3, 0.5, -0.625, 0.625, 9.5, -20.0, 3.0e38]


def add_alpha_broadcast(x, y):
    return torch.add(x, y, alpha=2.5)


def sub_scalar_int_alpha(x):
    return torch.sub(x, 1.5, alpha=2)


def scalar_inputs(x, s: float, n: int):
    return torch.div(x * s, n) - torch.mul(x, n)


def special_unary(x):
    return (torch.relu(x), torch.sigmoid(x), torch.neg(x), torch.exp(x), torch.log(x),
            torch.tanh(x))


def division(x, y):
    return x / y


def two_sided_broadcast(a, b, c):
    return torch.tanh(a * b + c)


def chain(x, y):
    z = torch.sigmoid(x * y - 0.5) + torch.tanh(y)
    return torch.relu(torch.log(torch.exp(z) + 1.0) / (z - x)), z


def bits(t):
    return " ".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0]
                    for v in t.reshape(-1).tolist())


def shape(t):
    return "x".join(str(d) for d in t.shape) or "-"


def static_graph(fn, inputs, fuse):
    g = torch.jit.script(fn).graph.copy()
    torch._C._jit_pass_complete_shape_analysis(g, inputs, False)
    if fuse:
        torch._C._jit_pass_fuse_tensorexprs(g)
    return str(g).replace(HERE + "/", "tools/gen/")


def group_call(fn, inputs):
    """The first TensorExpr group of fn's fused graph, run by PyTorch on the values that reach
    it: (its input names, its input values, its outputs)."""
    g = torch.jit.script(fn).graph.copy()
    torch._C._jit_pass_complete_shape_analysis(g, inputs, False)
    torch._C._jit_pass_fuse_tensorexprs(g)
    graph_inputs = list(g.inputs())
    group = g.findNode("prim::TensorExprGroup")
    values = []
    for v in group.inputs():
        node = v.node()
        if node.kind() == "prim::TypeCheck":
            v = list(node.inputs())[v.offset()]
        values.append(inputs[[i.unique() for i in graph_inputs].index(v.unique())])
    sub = group.g("Subgraph").copy()
    names = [i.debugName().split(".")[0] for i in sub.inputs()]
    outs = list(sub.outputs())
    if len(outs) > 1:
        # A function returns one value: pack several outputs in a tuple.
        tup = sub.insertNode(sub.create("prim::TupleConstruct", outs, 1))
        tup.output().setType(torch._C.TupleType([o.type() for o in outs]))
        for i in reversed(range(len(outs))):
            sub.eraseOutput(i)
        sub.registerOutput(tup.output())
    run = torch._C._create_function_from_graph("group", sub)
    return names, values, run(*values)


def write(name, fn, inputs, fuse=False):
    graph = static_graph(fn, inputs, fuse)
    names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    if fuse:
        # The kernel is the fusion group: its inputs and PyTorch's values for its outputs.
        names, inputs, outputs = group_call(fn, inputs)
    else:
        outputs = fn(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    lines = []
    for n, v in zip(names, inputs):
        if isinstance(v, torch.Tensor):
            lines.append(f"in {n} tensor {shape(v)} {bits(v)}".rstrip())
        elif isinstance(v, float):
            lines.append(f"in {n} float {v!r}")
        else:
            lines.append(f"in {n} int {v}")
    for o in outputs:
        lines.append(f"out tensor {shape(o)} {bits(o)}".rstrip())
    with open(os.path.join(OUT, name + ".ir"), "w") as f:
        f.write(graph)
    with open(os.path.join(OUT, name + ".values"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(0)
    x23 = torch.randn(2, 3, generator=g)
    write("add_alpha_broadcast", add_alpha_broadcast, (x23, torch.randn(3, generator=g)))
    write("sub_scalar_int_alpha", sub_scalar_int_alpha, (x23,))
    write("scalar_inputs", scalar_inputs, (torch.randn(3, 4, generator=g), 0.1, 3))
    sp = torch.tensor(SPECIAL, dtype=torch.float32)
    write("special_unary", special_unary, (sp,))
    write("division", division, (sp, torch.tensor([0.0, 0.0, 1.0, 0.0, -0.0, 2.0, 0.0, -3.0,
                                                   4.0, 1e-40, math.inf, -0.0, 3.0, 7.0,
                                                   math.nan, 1.0, -1.0, 0.1, 1e-30, 0.5])))
    write("two_sided_broadcast", two_sided_broadcast,
          (torch.randn(4, 1, generator=g), torch.randn(1, 3, generator=g), torch.tensor(0.25)))
    xs, ys = torch.randn(8, 16, generator=g) * 3, torch.rand(16, generator=g) * 4 - 2
    write("chain", chain, (xs, ys))
    write("chain_group", chain, (xs, ys), fuse=True)


if __name__ == "__main__":
    main()
