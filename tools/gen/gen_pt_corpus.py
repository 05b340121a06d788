#!/usr/bin/env python3
"""Generates the .pt archive corpus of test/pt/ with real PyTorch (run with the torch venv:
~/.cache/torch-venv/bin/python tools/gen/gen_pt_corpus.py).

For every model NAME it writes
  NAME.pt    the archive torch.jit.save wrote (scripted or traced, fixed seeds)
  NAME.npz   sample inputs (input_0, ...) and PyTorch's outputs (output_0, ... in depth-first
             order of the result's tensors)
and test/pt/SUMMARY.json: per archive, the root class, the file format version, the records,
and every parameter and buffer (state-dict name, dtype, shape, first values, sum) for the
reader's tests to compare the unpickled structure with.

Models over 1 MB (torchvision resnet18 and mobilenet_v3_small) are written only with
--large DIR, which writes only those (test/setup/pt_models.sh does that); they are not
committed.
"""
import argparse
import enum
import io
import json
import os
import sys
import warnings
import zipfile
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
from torch import Tensor

warnings.filterwarnings("ignore")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "test", "pt")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.conv2(self.relu(self.bn(self.conv(x))))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, q, k, v):
        out, weights = self.mha(q, k, v)
        return out, weights


class LSTMCell(nn.Module):
    """A hand-written LSTM cell, run over time in script."""

    def __init__(self, n_in: int, n_hidden: int):
        super().__init__()
        self.ih = nn.Linear(n_in, 4 * n_hidden)
        self.hh = nn.Linear(n_hidden, 4 * n_hidden)

    def forward(self, x: Tensor, state: Tuple[Tensor, Tensor]) -> Tuple[Tensor, Tensor]:
        h, c = state
        gates = self.ih(x) + self.hh(h)
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class ScriptLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = LSTMCell(4, 6)
        self.hidden = 6

    def forward(self, xs: Tensor) -> Tensor:
        h = torch.zeros(xs.size(1), self.hidden)
        c = torch.zeros(xs.size(1), self.hidden)
        outs: List[Tensor] = []
        for t in range(xs.size(0)):
            h, c = self.cell(xs[t], (h, c))
            outs.append(h)
        return torch.stack(outs)


class Containers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 3)})

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.heads["a"](x), self.heads["b"](x)


class BuffersConstants(nn.Module):
    __constants__ = ["scale", "names"]
    eps: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.scale = 2.5
        self.names = ("x", "y")
        self.eps = 1e-3
        self.register_buffer("running", torch.arange(6, dtype=torch.float32).reshape(2, 3))
        self.register_buffer("counts", torch.tensor([1, 2, 3], dtype=torch.int64))
        self.register_buffer("mask", torch.tensor([True, False, True]))
        self.register_buffer("halves", torch.linspace(0, 1, 4).to(torch.float16))
        self.register_buffer("doubles", torch.tensor([0.5, -1.25], dtype=torch.float64))
        # A view of a strided slice: the storage is shared and the buffer is not contiguous.
        base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
        self.register_buffer("strided", base.t())
        self.weight = nn.Parameter(torch.randn(3))
        self.steps = 3
        self.flag = True
        self.label = "buffers"

    def forward(self, x):
        y = x * self.scale + self.eps
        y = y + self.running.sum() + self.weight.sum() + self.strided.sum()
        return y + self.counts.sum() + float(self.steps)


@torch.jit.script
class Point:
    def __init__(self, x: float, y: float):
        self.x = x
        self.y = y

    def norm2(self) -> float:
        return self.x * self.x + self.y * self.y


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class CustomClassDict(nn.Module):
    table: Dict[str, int]
    weights: Dict[str, Tensor]
    scales: List[float]
    maybe: Optional[int]

    def __init__(self):
        super().__init__()
        self.table = {"a": 1, "b": 2}
        self.weights = {"w": torch.ones(2, 2), "v": torch.full((3,), 0.5)}
        self.scales = [0.5, 2.0]
        self.maybe = None
        self.origin = Point(3.0, 4.0)
        self.color = Color.GREEN

    def forward(self, x):
        s = float(self.table["a"] + self.table["b"]) + self.origin.norm2()
        if self.color == Color.GREEN:
            s = s + 1.0
        return x * s + self.weights["w"].sum() * self.scales[1]


class StatefulCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 7
        self.register_buffer("base", torch.ones(2))

    def forward(self, x):
        return x + self.base * self.count

    @torch.jit.export
    def __getstate__(self):
        return (self.count, self.base, self.training)

    @torch.jit.export
    def __setstate__(self, state: Tuple[int, Tensor, bool]):
        self.count = state[0]
        self.base = state[1]
        self.training = state[2]


class TensorLiterals(nn.Module):
    """Traced, its tensor literals become graph constants, which the serializer lifts into
    constants.pkl (stored under constants/) and code names as CONSTANTS.c0, CONSTANTS.c1."""

    def forward(self, x):
        w = torch.tensor([[1.0, -2.0, 0.25], [0.5, 3.0, -1.0]])
        return x @ w + torch.tensor([1, 2, 3]).sum()


@torch.jit.interface
class OneArg(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        pass


@torch.jit.interface
class Scale:
    def apply(self, x: Tensor) -> Tensor:
        pass


@torch.jit.script
class Twice:
    def __init__(self):
        self.k = 2.0

    def apply(self, x: Tensor) -> Tensor:
        return x * self.k


class Doubler(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x * 2


class AddBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.full((3,), 0.5))

    def forward(self, x: Tensor) -> Tensor:
        return x + self.bias


class InterfaceCalls(nn.Module):
    """A submodule attribute of a module interface type and an argument of a class interface
    type, called through the interface (prim::CallMethod on InterfaceType), and isinstance on
    an interface decided at run time (prim::isinstance[types=[InterfaceType<Scale>]])."""
    first: OneArg
    second: OneArg

    def __init__(self):
        super().__init__()
        self.first = Doubler()
        self.second = AddBias()

    def scaled(self, s: Scale, x: Tensor) -> Tensor:
        return s.apply(x)

    def forward(self, x):
        y = self.second.forward(self.first.forward(x))
        s = Twice()
        y = self.scaled(s, y)
        a: Any = s
        if isinstance(a, Scale):
            y = y + 1.0
        return y


def seed(n=0):
    torch.manual_seed(n)
    np.random.seed(n)


def flatten(v):
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, int):  # the Rust runner compares an int output as a 0-d tensor
        return [torch.tensor(v)]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in flatten(x)]
    raise TypeError(type(v))


def tensor_summary(t):
    t = t.detach()
    flat = t.reshape(-1)
    head = flat[:8].to(torch.float64).tolist()
    return {
        "dtype": str(t.dtype).replace("torch.", ""),
        "shape": list(t.shape),
        "strides": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "head": head,
        "sum": float(t.to(torch.float64).sum()),
    }


def summarize(path, module):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    folder = names[0].split("/")[0]
    with zipfile.ZipFile(path) as z:
        version = int(z.read(f"{folder}/version").decode().strip())
    return {
        "folder": folder,
        "version": version,
        "root_class": module._c._type().qualified_name(),
        "records": sorted(n[len(folder) + 1:] for n in names),
        "tensors": {k: tensor_summary(v) for k, v in module.state_dict().items()},
    }


def save(name, module, inputs, out_dir=OUT, summary=None, extra_files=None):
    path = os.path.join(out_dir, name + ".pt")
    if extra_files:
        torch.jit.save(module, path, _extra_files=extra_files)
    else:
        torch.jit.save(module, path)
    loaded = torch.jit.load(path)
    with torch.no_grad():
        outputs = flatten(loaded(*inputs))
    arrays = {f"input_{i}": x.numpy() for i, x in enumerate(inputs)}
    arrays.update({f"output_{i}": y.numpy() for i, y in enumerate(outputs)})
    np.savez(os.path.join(out_dir, name + ".npz"), **arrays)
    if summary is not None:
        summary[name] = summarize(path, loaded)
    print(f"{name}: {os.path.getsize(path)} bytes", file=sys.stderr)
    return path


def rewrite(src, dst, edit):
    """Copies archive `src` to `dst`, passing (name, data) of each record through `edit`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info.filename))
            zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            zi.compress_type = info.compress_type
            zout.writestr(zi, data)


def legacy_variants(summary):
    """Archives in the other forms PyTorch has written or reads: the old .debug_pkl format,
    extra files, older file format versions, a big-endian archive."""
    seed(10)
    mlp = torch.jit.script(MLP().eval())
    x = torch.randn(2, 8)
    torch._C._set_should_use_format_with_string_table(False)
    try:
        save("mlp_old_debug_format", mlp, [x], summary=summary)
    finally:
        torch._C._set_should_use_format_with_string_table(True)
    save("mlp_extra_files", mlp, [x], summary=summary,
         extra_files={"meta.json": '{"producer": "gen_pt_corpus"}', "notes.txt": "hello"})
    base = os.path.join(OUT, "mlp_extra_files.pt")
    for version in (1, 2):
        name = f"mlp_version{version}"
        dst = os.path.join(OUT, name + ".pt")
        rewrite(base, dst, lambda n, d: f"{version}\n".encode() if n.endswith("/version") else d)
        loaded = torch.jit.load(dst)  # PyTorch accepts it too
        summary[name] = summarize(dst, loaded)
        summary[name]["version"] = version
        np.savez(os.path.join(OUT, name + ".npz"), input_0=x.numpy(),
                 output_0=loaded(x).detach().numpy())
    # Big-endian: every storage byte-swapped per element, as a big-endian machine writes it.
    bufs = torch.jit.script(BuffersConstants().eval())
    seed(11)
    bx = torch.randn(2, 3)
    src = save("buffers_little_endian_tmp", bufs, [bx])
    dtype_of_key = storage_dtypes(src)
    dst = os.path.join(OUT, "buffers_big_endian.pt")

    def to_big(n, d):
        if n.endswith("/byteorder"):
            return b"big"
        parts = n.split("/")
        if len(parts) == 3 and parts[1] == "data":
            width = dtype_of_key[parts[2]]
            a = np.frombuffer(d, dtype=np.uint8).reshape(-1, width)[:, ::-1]
            return a.tobytes()
        return d

    rewrite(src, dst, to_big)
    # PyTorch's TorchScript loader ignores `byteorder`, so the expected values are those of the
    # little-endian original, which a reader that honours `byteorder` must reproduce.
    original = torch.jit.load(src)
    summary["buffers_big_endian"] = summarize(src, original)
    summary["buffers_big_endian"]["records"] = summarize(dst, original)["records"]
    with torch.no_grad():
        np.savez(os.path.join(OUT, "buffers_big_endian.npz"), input_0=bx.numpy(),
                 output_0=original(bx).numpy())
    for ext in (".pt", ".npz"):
        os.remove(os.path.join(OUT, "buffers_little_endian_tmp" + ext))


def storage_dtypes(path):
    """Element width of every data/N record, from the storage types data.pkl names."""
    import pickletools
    with zipfile.ZipFile(path) as z:
        folder = z.namelist()[0].split("/")[0]
        pkl = z.read(f"{folder}/data.pkl")
    widths = {"FloatStorage": 4, "LongStorage": 8, "BoolStorage": 1, "HalfStorage": 2,
              "DoubleStorage": 8, "IntStorage": 4, "ByteStorage": 1}
    out, last_type, memo = {}, None, {}
    ops = list(pickletools.genops(pkl))
    for i, (op, arg, _) in enumerate(ops):
        if op.name == "GLOBAL" and arg.startswith("torch ") and arg.endswith("Storage"):
            last_type = widths[arg.split()[1]]
            memo_next = ops[i + 1]
            if memo_next[0].name == "BINPUT":
                memo[memo_next[1]] = last_type
        elif op.name == "BINGET" and arg in memo:
            last_type = memo[arg]
        elif op.name == "BINUNICODE" and last_type is not None and arg.isdigit():
            out[arg] = last_type
            last_type = None
    return out


def write_large(out_dir):
    import torchvision
    os.makedirs(out_dir, exist_ok=True)
    large = {}
    seed(100)
    r = torchvision.models.resnet18(weights=None).eval()
    save("resnet18", torch.jit.script(r), [torch.randn(1, 3, 224, 224)], out_dir=out_dir, summary=large)
    seed(101)
    mb = torchvision.models.mobilenet_v3_small(weights=None).eval()
    save("mobilenet_v3_small", torch.jit.script(mb), [torch.randn(1, 3, 224, 224)], out_dir=out_dir,
         summary=large)
    with open(os.path.join(out_dir, "SUMMARY.json"), "w") as f:
        json.dump(large, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--large", help="also write resnet18 and mobilenet_v3_small here")
    args = ap.parse_args()
    if args.large:
        write_large(args.large)
        return
    os.makedirs(OUT, exist_ok=True)
    summary = {}

    seed(0)
    save("mlp_scripted", torch.jit.script(MLP().eval()), [torch.randn(3, 8)], summary=summary)
    seed(1)
    m = MLP().eval()
    save("mlp_traced", torch.jit.trace(m, torch.randn(3, 8)), [torch.randn(3, 8)], summary=summary)

    seed(2)
    m = ConvBnRelu()
    with torch.no_grad():  # non-trivial running statistics
        m.train()(torch.randn(4, 3, 6, 6))
    m.eval()
    x = torch.randn(1, 3, 6, 6)
    save("conv_bn_relu_scripted", torch.jit.script(m), [x], summary=summary)
    save("conv_bn_relu_traced", torch.jit.trace(m, x), [x], summary=summary)

    seed(3)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True).eval()
    save("transformer_encoder_layer", torch.jit.script(layer), [torch.randn(2, 5, 16)], summary=summary)

    seed(4)
    att = Attention().eval()
    q = torch.randn(2, 3, 16)
    save("multihead_attention", torch.jit.script(att), [q, torch.randn(2, 4, 16), torch.randn(2, 4, 16)],
         summary=summary)

    seed(5)
    lstm = nn.LSTM(4, 6, num_layers=2).eval()
    xs = torch.randn(5, 2, 4)
    save("lstm_traced", torch.jit.trace(lstm, xs), [xs], summary=summary)
    seed(6)
    gru = nn.GRU(4, 5).eval()
    save("gru_traced", torch.jit.trace(gru, xs), [xs], summary=summary)

    seed(7)
    save("script_lstm_custom_cell", torch.jit.script(ScriptLSTM().eval()), [torch.randn(5, 2, 4)],
         summary=summary)

    seed(8)
    save("module_list_dict", torch.jit.script(Containers().eval()), [torch.randn(2, 4)], summary=summary)

    seed(9)
    save("buffers_constants_final", torch.jit.script(BuffersConstants().eval()), [torch.randn(2, 3)],
         summary=summary)
    save("custom_class_dict_attrs", torch.jit.script(CustomClassDict().eval()), [torch.randn(2, 2)],
         summary=summary)
    save("setstate_module", torch.jit.script(StatefulCounter().eval()), [torch.randn(2)], summary=summary)

    seed(12)
    lit = TensorLiterals().eval()
    save("tensor_constants_traced", torch.jit.trace(lit, torch.randn(4, 2)), [torch.randn(4, 2)],
         summary=summary)
    seed(13)
    m = ConvBnRelu()
    with torch.no_grad():
        m.train()(torch.randn(4, 3, 6, 6))
    frozen = torch.jit.freeze(torch.jit.script(m.eval()))  # parameters become CONSTANTS.cN
    save("conv_bn_relu_frozen", frozen, [torch.randn(1, 3, 6, 6)], summary=summary)
    seed(14)
    save("interface_calls", torch.jit.script(InterfaceCalls().eval()), [torch.randn(2, 3)],
         summary=summary)

    legacy_variants(summary)

    with open(os.path.join(OUT, "SUMMARY.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")



if __name__ == "__main__":
    main()
