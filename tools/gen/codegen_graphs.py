"""Prints the PyTorch graphs that test/Conversion's codegen tests compile.

Run with the torch venv (~/.cache/torch-venv/bin/python tools/gen/codegen_graphs.py); the
graphs are pasted below the RUN/CHECK lines of the tests. Shapes are made static by PyTorch's
complete shape analysis; the fusion-group form comes from PyTorch's own TensorExpr fuser pass
(run as a graph pass: no LLVM backend is needed to form groups).
"""

import os

import torch

torch._C._jit_override_can_fuse_on_cpu(True)
torch._C._jit_set_texpr_fuser_enabled(True)


def sigmoid_tanh(x, y):
    z = torch.add(x, y, alpha=2)
    return torch.sigmoid(z) * torch.tanh(x) - 1.5


def scalars(a, b, s: float):
    return torch.neg(torch.relu(a * b / s))


def exp_log(x, y):
    return torch.log(torch.exp(x) / y) - x


def static_graph(fn, *inputs):
    g = torch.jit.script(fn).graph.copy()
    torch._C._jit_pass_complete_shape_analysis(g, inputs, False)
    return g


def show(g):
    # Source comments name this file without the checkout's directory.
    print(str(g).replace(os.path.dirname(os.path.abspath(__file__)) + "/", ""))


def main():
    x, y = torch.randn(2, 3), torch.randn(3)
    for name, fn, inputs in [
        ("sigmoid_tanh", sigmoid_tanh, (x, y)),
        ("scalars", scalars, (torch.randn(4, 1), torch.randn(3), 2.0)),
        ("exp_log", exp_log, (x, torch.rand(2, 3) + 0.5)),
    ]:
        print(f"### {name} (whole graph)")
        show(static_graph(fn, *inputs))
    g = static_graph(sigmoid_tanh, x, y)
    torch._C._jit_pass_fuse_tensorexprs(g)
    print("### sigmoid_tanh (TensorExpr fusion group)")
    show(g)


if __name__ == "__main__":
    main()
