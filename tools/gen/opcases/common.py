"""Shared code of the differential op suite: each case is a TorchScript function run by real
PyTorch on sample inputs; the scripted graph and the inputs, outputs and post-call inputs are
written beside each other for Ember's runner (runtime/tests/differential.rs).

For a case NAME of area AREA this writes
  test/ops/AREA/NAME.ir   the scripted graph, str(graph)
  test/ops/AREA/NAME.npz  in0..inN (inputs; Python scalars as 0-d arrays, int lists as 1-d
                          int64, lists of tensors as in<i>_<j>, None inputs absent),
                          out0.. (outputs flattened depth-first through tuples and lists;
                          scalars as 0-d arrays; a None output as a 0x0x0 float32 array),
                          after<k> (every tensor input after the call, for in-place checks),
                          rtol/atol when the case sets them, error (PyTorch's message, UTF-8
                          bytes) when the call raised. bfloat16 tensors are stored as uint16 bit
                          patterns under the key with `__bf16` appended.

Python values beyond numbers (runner: runtime/tests/differential.rs):
  str       a str input or output `<key>` is stored as its UTF-8 bytes (1-d uint8) under
            `<key>`, with a marker `<key>__str` (0-d bool) beside it; List[str] inputs are
            stored element-wise as in<i>_<j> (each with its marker).
  dict      outputs are flattened in insertion order as key, value, key, value, ... (each
            flattened as any other output); an empty dict or list contributes nothing.
Marker keys are not outputs: out0, out1, ... count only keys without a `__` suffix.
"""

import contextlib
import io
import os
import zipfile

import numpy as np
import torch

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OUT_ROOT = os.path.join(REPO, "test", "ops")
# Source comments in graphs name the generator's files; keep them repo-relative.
_GEN_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# Traced graphs name PyTorch's own files; keep them relative to the torch package.
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))


def module_call(module, n_inputs):
    """`(fn, params)`: `fn(*inputs, *params)` runs `module(*inputs)` with its parameters
    replaced by the trailing arguments, so that a trace makes the weights graph inputs (the
    generator stores tensors, not modules)."""
    names = [n for n, _ in module.named_parameters()]
    params = [p.detach().clone() for _, p in module.named_parameters()]

    def fn(*args):
        inputs, values = args[:n_inputs], args[n_inputs:]
        saved = []
        for qualified, value in zip(names, values):
            owner = module
            *path, leaf = qualified.split(".")
            for part in path:
                owner = getattr(owner, part)
            saved.append((owner, leaf, owner._parameters[leaf]))
            owner._parameters[leaf] = value
        _refresh_flat_weights(module)
        try:
            return module(*inputs)
        finally:
            for owner, leaf, old in saved:
                owner._parameters[leaf] = old
            _refresh_flat_weights(module)

    return fn, params


def _refresh_flat_weights(module):
    """nn.RNN modules cache their parameters in `_flat_weights`; rebuild the caches."""
    for m in module.modules():
        if hasattr(m, "_update_flat_weights"):
            m._update_flat_weights()


def _np(t):
    """A numpy array of a tensor. numpy has no bfloat16: those are stored as their raw 16-bit
    patterns in a uint16 array whose key ends in `__bf16`, see `_put`."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16).copy()
    return t.numpy().copy()


def _put(arrays, key, t):
    """Stores tensor `t` under `key` (`key__bf16` for bfloat16)."""
    arrays[key + ("__bf16" if t.dtype == torch.bfloat16 else "")] = _np(t)


class _Str:
    """A str output, stored as UTF-8 bytes with a `__str` marker."""

    def __init__(self, text):
        self.text = text


def _put_str(arrays, key, text):
    arrays[key] = np.frombuffer(text.encode(), dtype=np.uint8).copy()
    arrays[key + "__str"] = np.array(True)


def _flatten(value, out):
    if isinstance(value, str):
        out.append(_Str(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            _flatten(k, out)
            _flatten(v, out)
    elif isinstance(value, (tuple, list)) and not (
        isinstance(value, list) and value and all(isinstance(v, (int, float, bool)) for v in value)
    ):
        for v in value:
            _flatten(v, out)
    elif isinstance(value, list):
        # A list of Python scalars is one array.
        out.append(np.array(value))
    elif isinstance(value, torch.Tensor):
        out.append(value)
    elif value is None:
        out.append(np.array([], dtype=np.float32).reshape(0, 0, 0))  # marker: None
    else:
        out.append(np.array(value))


def _scalar_array(v):
    if isinstance(v, bool):
        return np.array(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.array(v, dtype=np.int64)
    if isinstance(v, float):
        return np.array(v, dtype=np.float64)
    if isinstance(v, (list, tuple)) and all(isinstance(x, bool) for x in v):
        return np.array(v, dtype=np.bool_)
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
        return np.array(v, dtype=np.int64).reshape(len(v))
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
        return np.array(v, dtype=np.float64).reshape(len(v))
    raise TypeError(f"unsupported input {v!r}")


def _clone(v):
    if isinstance(v, torch.Tensor):
        # Keep non-contiguous layouts: clone preserves strides for dense tensors.
        return v.clone()
    if isinstance(v, list):
        return [_clone(x) for x in v]
    return v


class Cases:
    """Collects the cases of one area and writes them."""

    def __init__(self, area):
        self.area = area
        self.dir = os.path.join(OUT_ROOT, area)
        self.names = set()

    def add(self, name, fn, *inputs, rtol=None, atol=None, inline=False):
        """A scripted case; with `inline`, calls to other script functions (prim::CallFunction,
        which a graph file cannot carry) are inlined into the graph first."""
        if name in self.names:
            raise ValueError(f"duplicate case name {self.area}/{name}")
        self.names.add(name)
        scripted = torch.jit.script(fn)
        if inline:
            torch._C._jit_pass_inline(scripted.graph)
        self._record(name, scripted, inputs, rtol, atol)

    def add_traced(self, name, fn, *inputs, rtol=None, atol=None):
        """A case whose graph is `torch.jit.trace(fn, inputs)` recorded (and run) under
        `torch.no_grad()`, as a traced eval-mode model is: the graph holds the ops PyTorch
        dispatched for these inputs (fast paths included). Inputs are tensors; see
        `module_call` to make a module's parameters graph inputs."""
        if name in self.names:
            raise ValueError(f"duplicate case name {self.area}/{name}")
        self.names.add(name)
        with torch.no_grad():
            traced = torch.jit.trace(fn, tuple(_clone(v) for v in inputs), check_trace=False)
        self._record(name, traced, inputs, rtol, atol, no_grad=True)

    def _record(self, name, scripted, inputs, rtol, atol, no_grad=False):
        graph = str(scripted.graph).replace(_GEN_DIR + os.sep, "tools/gen/")
        graph = graph.replace(_TORCH_DIR + os.sep, "torch/")
        arrays = {}
        put_inputs(arrays, inputs)
        call_inputs = [_clone(v) for v in inputs]
        try:
            with torch.no_grad() if no_grad else contextlib.nullcontext():
                put_outputs(arrays, scripted(*call_inputs))
            for i, v in enumerate(call_inputs):
                if isinstance(v, torch.Tensor):
                    _put(arrays, f"after{i}", v)
        except Exception as e:  # PyTorch raised: Ember must raise too.
            put_error(arrays, e)
        if rtol is not None:
            arrays["rtol"] = np.array(rtol, dtype=np.float64)
        if atol is not None:
            arrays["atol"] = np.array(atol, dtype=np.float64)
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, name + ".ir"), "w") as f:
            f.write(graph)
        _write_npz(os.path.join(self.dir, name + ".npz"), arrays)


def put_inputs(arrays, inputs):
    """Stores call inputs as in0..inN (see the module doc for the encoding)."""
    for i, v in enumerate(inputs):
        if v is None:
            continue
        if isinstance(v, torch.Tensor):
            _put(arrays, f"in{i}", v)
        elif isinstance(v, list) and v and all(isinstance(x, torch.Tensor) for x in v):
            for j, x in enumerate(v):
                _put(arrays, f"in{i}_{j}", x)
        elif isinstance(v, str):
            _put_str(arrays, f"in{i}", v)
        elif isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            for j, x in enumerate(v):
                _put_str(arrays, f"in{i}_{j}", x)
        else:
            arrays[f"in{i}"] = _scalar_array(v)


def put_outputs(arrays, result):
    """Stores a call's result flattened depth-first as out0..outN."""
    outs = []
    _flatten(result, outs)
    for k, a in enumerate(outs):
        if isinstance(a, torch.Tensor):
            _put(arrays, f"out{k}", a)
        elif isinstance(a, _Str):
            _put_str(arrays, f"out{k}", a.text)
        else:
            arrays[f"out{k}"] = a


def put_error(arrays, e):
    """Stores the line of PyTorch's run-time error that carries its message under `error`."""
    message = str(e).strip().splitlines()
    # As UTF-8 bytes: simpler for the runner than numpy's unicode arrays.
    arrays["error"] = np.frombuffer(_error_line(message).encode(), dtype=np.uint8)

def _error_line(lines):
    """The line of a TorchScript error that carries PyTorch's message."""
    for line in reversed(lines):
        line = line.strip()
        if line.startswith("RuntimeError:") or line.startswith("builtins."):
            message = line.split(":", 1)[1].strip()
            # An operator implemented in Python re-raises with its own class name in front.
            for prefix in ("RuntimeError:", "NotImplementedError:", "ValueError:"):
                while message.startswith(prefix):
                    message = message[len(prefix):].strip()
            return message
    return lines[-1].strip() if lines else "error"


def _write_npz(path, arrays):
    """Writes a deterministic .npz (sorted entries, fixed timestamps) so regeneration gives
    identical bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for key in sorted(arrays):
            buf = io.BytesIO()
            a = np.asarray(arrays[key])  # ascontiguousarray would make 0-d arrays 1-d
            if not a.flags.c_contiguous:
                a = a.copy(order="C")
            np.lib.format.write_array(buf, a, allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, buf.getvalue())
