#!/usr/bin/env python3
"""Generates the corpus of modules defined in source (test/modules/) with real PyTorch.

    ~/.cache/torch-venv/bin/python tools/gen/gen_module_corpus.py

Each case is a TorchScript source file that defines `nn.Module` classes; its root module is
the last module class of the file (the one no other holds), constructed with no arguments as
a fresh PyTorch process would construct it (the default generator at PyTorch's default seed),
then scripted. For a case NAME this writes, under test/modules/:
  NAME.py        the source
  NAME.code      torch.jit.script(M()).code (forward)
  NAME.npz       the first run: in0.., out0.. (or error), encoded as tools/gen/opcases/common.py
                 does; NAME.run1.npz, ... the others

Ember constructs the same module from NAME.py without Python (compiler/src/construct.rs) and
must run it to the same outputs (compiler/tests/source_modules.rs); tools/gen/
check_written_archives.py checks that PyTorch loads and runs the archive Ember writes of it.
"""

import ast
import importlib.util
import inspect
import os
import shutil
import sys
import textwrap
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from opcases.common import REPO, _clone, _write_npz, put_error, put_inputs, put_outputs  # noqa: E402

OUT = os.path.join(REPO, "test", "modules")
DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val

warnings.filterwarnings("ignore")

HEADER = """\
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor
"""

CASES = {}


def case(name, *runs):
    def add(source):
        CASES[name] = (textwrap.dedent(source).strip("\n") + "\n", runs)

    return add


x24 = torch.linspace(-2, 2, 8).reshape(2, 4)

case("nested_parameters", (x24,), (x24, 2.0))(
    """
    def scale(x: Tensor, k: float) -> Tensor:
        return x * k


    class Block(nn.Module):
        def __init__(self, n: int):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(n, n))
            self.register_buffer("shift", torch.arange(n).float() / n)

        def forward(self, x: Tensor) -> Tensor:
            return torch.relu(x @ self.weight + self.shift)


    class Net(nn.Module):
        def __init__(self, n: int = 4):
            super().__init__()
            self.first = Block(n)
            self.second = Block(n)
            self.sizes: List[int] = [n, n]

        def forward(self, x: Tensor, k: float = 0.5) -> Tensor:
            return scale(self.second(self.first(x)), k) + len(self.sizes)
    """
)

case("attribute_types", (x24,))(
    """
    class Config(nn.Module):
        def __init__(self):
            super().__init__()
            self.name = "affine"
            self.scale = 1.5
            self.steps = 3
            self.enabled = True
            self.pair = (2, 0.25)
            self.table: Dict[str, float] = {"a": 1.0, "b": -2.0}
            self.shape: List[int] = [2, 4]

        def forward(self, x: Tensor) -> Tensor:
            y = x.reshape(self.shape) * self.scale
            for _ in range(self.steps):
                y = y + self.pair[1] * self.pair[0]
            if self.enabled and self.name == "affine":
                y = y + self.table["a"] + self.table["b"]
            return y
    """
)

case("training_flag", (x24,))(
    """
    class Dropoutish(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = 0.5

        def forward(self, x: Tensor) -> Tensor:
            if self.training:
                return x * (1.0 - self.p)
            return x


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = Dropoutish()
            self.bias = nn.Parameter(torch.full([4], 0.125))

        def forward(self, x: Tensor) -> Tuple[Tensor, bool]:
            return self.drop(x) + self.bias, self.training
    """
)

case("init_control_flow", (x24,))(
    """
    class Poly(nn.Module):
        def __init__(self, degree: int = 3):
            super().__init__()
            coefficients: List[float] = []
            for i in range(degree + 1):
                if i % 2 == 0:
                    coefficients.append(1.0 / (i + 1))
                else:
                    coefficients.append(-0.5 * i)
            self.coefficients = torch.tensor(coefficients)
            self.degree = degree

        def forward(self, x: Tensor) -> Tensor:
            out = torch.zeros_like(x)
            for i in range(self.degree + 1):
                out = out + self.coefficients[i] * x ** i
            return out
    """
)

case("exported_methods", (x24,))(
    """
    class Head(nn.Module):
        def __init__(self, classes: int):
            super().__init__()
            self.weight = nn.Parameter(torch.rand(classes, 4) - 0.5)
            self.bias = nn.Parameter(torch.zeros(classes))

        @torch.jit.export
        def logits(self, x: Tensor) -> Tensor:
            return torch.nn.functional.linear(x, self.weight, self.bias)

        def forward(self, x: Tensor) -> Tensor:
            return torch.softmax(self.logits(x), dim=-1)


    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = Head(3)
            self.temperature = 2.0

        def forward(self, x: Tensor) -> Tensor:
            return self.head(x / self.temperature)
    """
)

case("optional_submodule", (x24,))(
    """
    class Gate(nn.Module):
        def __init__(self, width: int):
            super().__init__()
            self.gate = nn.Parameter(torch.randn(width).sigmoid())

        def forward(self, x: Tensor) -> Tensor:
            return x * self.gate


    class Net(nn.Module):
        def __init__(self, use_gate: bool = True):
            super().__init__()
            self.gate = Gate(4)
            self.mask: Optional[Tensor] = None
            self.use_gate = use_gate

        def forward(self, x: Tensor) -> Tensor:
            if self.use_gate:
                x = self.gate(x)
            mask = self.mask
            if mask is not None:
                x = x * mask
            return x
    """
)

case("normal_init", (torch.ones(1, 3, 5, 5),))(
    """
    class ConvBlock(nn.Module):
        def __init__(self, cin: int, cout: int):
            super().__init__()
            fan_in = cin * 9
            self.weight = nn.Parameter(torch.randn(cout, cin, 3, 3) * (2.0 / fan_in) ** 0.5)
            self.bias = nn.Parameter(torch.empty(cout).uniform_(-0.1, 0.1))

        def forward(self, x: Tensor) -> Tensor:
            return torch.relu(torch.conv2d(x, self.weight, self.bias, padding=1))


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = ConvBlock(3, 4)
            self.b = ConvBlock(4, 2)

        def forward(self, x: Tensor) -> Tensor:
            return self.b(self.a(x)).mean(dim=[2, 3])
    """
)

x_img = torch.linspace(-1, 1, 2 * 3 * 16 * 16).reshape(2, 3, 16, 16)

case("nn_convnet", (x_img, torch.tensor([0, 3, 7])))(
    """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 8, 3, stride=2, padding=1),
                nn.BatchNorm2d(8),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
                nn.Conv2d(8, 8, (3, 3), padding=1, groups=2, bias=False),
                nn.GELU(),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.head = nn.Sequential(
                nn.Linear(8, 16), nn.SiLU(), nn.Dropout(0.0), nn.Linear(16, 4), nn.LayerNorm(4)
            )
            self.embed = nn.Embedding(10, 4, padding_idx=0)

        def forward(self, x: Tensor, ids: Tensor) -> Tensor:
            return self.head(self.features(x)) + self.embed(ids).sum(0)
    """
)

case("nn_mlp", (torch.linspace(-3, 3, 24).reshape(3, 8),))(
    """
    class Branch(nn.Module):
        def __init__(self, width: int):
            super().__init__()
            self.body = nn.Sequential(
                nn.Linear(width, width, bias=False),
                nn.BatchNorm1d(width),
                nn.LeakyReLU(0.2),
                nn.Linear(width, width),
                nn.Hardswish(),
                nn.ReLU6(),
                nn.Identity(),
            )

        def forward(self, x: Tensor) -> Tensor:
            return self.body(x) + x


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.left = Branch(8)
            self.right = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Sigmoid())
            self.out = nn.Sequential(nn.Linear(8, 5), nn.Softmax(dim=-1))
            self.pool = nn.AvgPool2d(2, stride=1)

        def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
            y = self.out(self.left(x) * self.right(x))
            return y, self.pool(x.reshape(1, 1, 3, 8))
    """
)

case("nn_conv1d", (torch.linspace(-1, 1, 2 * 2 * 16).reshape(2, 2, 16),))(
    """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv1d(2, 4, 3, stride=2, padding=1),
                nn.BatchNorm1d(4),
                nn.ReLU(),
                nn.Conv1d(4, 4, (3,), dilation=(2,), groups=2, bias=False),
                nn.Tanh(),
            )

        def forward(self, x: Tensor) -> Tensor:
            return self.body(x).mean(-1)
    """
)

case("nn_module_list", (torch.linspace(-1, 1, 24).reshape(3, 8),))(
    """
    class Block(nn.Module):
        def __init__(self, width: int, scale: float):
            super().__init__()
            self.fc = nn.Linear(width, width)
            self.norm = nn.LayerNorm(width)
            self.scale = scale

        def forward(self, x: Tensor) -> Tensor:
            return x + torch.relu(self.fc(self.norm(x))) * self.scale


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(8, 0.5 * i) for i in range(3)])
            self.tail = nn.ModuleList([nn.Identity(), Block(8, 1.0), nn.GELU()])
            self.head = nn.Linear(8, 2)

        def forward(self, x: Tensor) -> Tensor:
            for block in self.blocks:
                x = block(x)
            for layer in self.tail:
                x = layer(x)
            return self.head(x)
    """
)

case("nn_init", (torch.linspace(-1, 1, 16).reshape(2, 8),))(
    """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 16)
            self.b = nn.Linear(16, 4)
            self.c = nn.Conv2d(2, 3, 3)
            self.emb = nn.Parameter(torch.empty(5, 8))
            self.pos = nn.Parameter(torch.empty(64, 8))
            nn.init.xavier_uniform_(self.a.weight)
            nn.init.zeros_(self.a.bias)
            nn.init.kaiming_normal_(self.b.weight, mode="fan_out", nonlinearity="relu")
            nn.init.constant_(self.b.bias, 0.1)
            nn.init.kaiming_uniform_(self.c.weight, a=0.2)
            nn.init.normal_(self.c.bias, std=0.02)
            nn.init.trunc_normal_(self.emb, std=0.5)
            nn.init.trunc_normal_(self.pos, mean=3.0, std=2.0, a=-1.0, b=0.0)
            torch.nn.init.xavier_normal_(self.emb, gain=nn.init.calculate_gain("tanh"))
            nn.init.ones_(self.pos[0])

        def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
            y = self.b(torch.relu(self.a(x + self.emb[0] + self.pos[0])))
            return y, self.c.weight.sum(), self.pos.sum()
    """
)


def root_class(source, module):
    """The last nn.Module class of the file that no other module class of it creates."""
    tree = ast.parse(source)
    classes = [c for c in tree.body if isinstance(c, ast.ClassDef)]
    names = {c.name for c in classes}
    created = set()
    for c in classes:
        for node in ast.walk(c):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
                created.add(node.func.id)
    roots = [c.name for c in classes if c.name not in created and issubclass(getattr(module, c.name), torch.nn.Module)]
    return getattr(module, roots[-1])


def generate(name, source, runs):
    path = os.path.join(OUT, name + ".py")
    with open(path, "w") as f:
        f.write(HEADER + "\n\n" + source)
    spec = importlib.util.spec_from_file_location(f"case_modules_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    torch.manual_seed(DEFAULT_SEED)
    root = root_class(source, module)
    scripted = torch.jit.script(root())
    # Defaults are stored too: the runner passes every argument.
    signature = inspect.signature(root.forward)
    with open(os.path.join(OUT, name + ".code"), "w") as f:
        f.write(scripted.code)
    for k, args in enumerate(runs):
        bound = signature.bind(None, *args)
        bound.apply_defaults()
        args = tuple(bound.arguments.values())[1:]
        arrays = {}
        put_inputs(arrays, args)
        try:
            with torch.no_grad():
                put_outputs(arrays, scripted(*[_clone(a) for a in args]))
        except Exception as e:
            put_error(arrays, e)
        suffix = "" if k == 0 else f".run{k}"
        _write_npz(os.path.join(OUT, f"{name}{suffix}.npz"), arrays)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for name, (source, runs) in CASES.items():
        generate(name, source, runs)
        print(name)


if __name__ == "__main__":
    main()
