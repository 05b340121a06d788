#!/usr/bin/env python3
"""The models of BENCHMARKS.md's "Models beside ONNX Runtime and OpenVINO" section: writes them
with random weights and fixed seeds, and times the peers on them (per call after warm-up,
median, batch 1, float32).

    python tools/bench/models.py write DIR
        DIR/NAME.pt          torch.jit.script of the eval-mode model (what ember-run reads)
        DIR/NAME.frozen.pt   the same after torch.jit.freeze (conv + batch norm folded)
        DIR/NAME.onnx        torch.onnx.export of the model (for ONNX Runtime and OpenVINO)
        DIR/NAME.in0.npy ... the inputs
    python tools/bench/models.py time DIR NAME THREADS [PEER ...]
        prints "NAME PEER MEDIAN_MS" per peer: eager (PyTorch eager), frozen
        (torch.jit.optimize_for_inference(torch.jit.freeze(script))), compile (torch.compile,
        inductor's default mode; also "NAME compile_first MS", its first call, compiling
        included), ort (ONNX Runtime), openvino; all peers by default.

Run with the torch venv (~/.cache/torch-venv/bin/python); tools/bench/models.sh drives both
sides and prints the table.
"""

import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn

warnings.filterwarnings("ignore")

MODELS = [
    "mlp",
    "lstm_pointwise",
    "chain",
    "encoder",
    "resnet18",
    "mobilenet_v3_small",
    "resnet50",
    "efficientnet_b0",
]


class LstmPointwise(nn.Module):
    """The pointwise part of an LSTM cell of hidden size 2048, batch 64: the gates chunked
    into four, sigmoid x3, tanh x2, the new cell and hidden state."""

    def forward(self, gates: torch.Tensor, c: torch.Tensor):
        i, f, g, o = gates.chunk(4, 1)
        i = torch.sigmoid(i)
        f = torch.sigmoid(f)
        g = torch.tanh(g)
        o = torch.sigmoid(o)
        c1 = f * c + i * g
        h1 = o * torch.tanh(c1)
        return h1, c1


class Chain(nn.Module):
    """Four elementwise ops on 2^22 floats."""

    def forward(self, x: torch.Tensor):
        return torch.relu(x * 0.5 + 1.0) * x


def build(name):
    """(eval-mode model, example inputs), seeded."""
    import torchvision

    torch.manual_seed(0)
    if name == "mlp":
        m = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        return m.eval(), [torch.randn(1, 784)]
    if name == "lstm_pointwise":
        return LstmPointwise().eval(), [torch.randn(64, 4 * 2048), torch.randn(64, 2048)]
    if name == "chain":
        return Chain().eval(), [torch.randn(1 << 22)]
    if name == "encoder":
        m = nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0, batch_first=True)
        return m.eval(), [torch.randn(1, 64, 256)]
    m = getattr(torchvision.models, name)(weights=None)
    return m.eval(), [torch.randn(1, 3, 224, 224)]


def write(out):
    os.makedirs(out, exist_ok=True)
    for name in MODELS:
        model, inputs = build(name)
        with torch.no_grad():
            scripted = torch.jit.script(model)
            scripted.save(os.path.join(out, f"{name}.pt"))
            torch.jit.freeze(torch.jit.script(model)).save(os.path.join(out, f"{name}.frozen.pt"))
            for i, x in enumerate(inputs):
                np.save(os.path.join(out, f"{name}.in{i}.npy"), x.numpy())
        # Exported with gradients on, so the transformer layer traces its plain ops (not the
        # fused native op, which ONNX has no form of).
        onnx_path = os.path.join(out, f"{name}.onnx")
        try:
            torch.onnx.export(model, tuple(inputs), onnx_path, opset_version=17, dynamo=False)
        except Exception:
            # The TorchScript exporter cannot trace the transformer layer; torch.export can.
            try:
                torch.onnx.export(model, tuple(inputs), onnx_path, opset_version=18, dynamo=True)
            except Exception as e:  # the peers then report they could not run
                print(f"{name}: ONNX export failed: {str(e).splitlines()[0]}", file=sys.stderr)
        print(f"wrote {name}", file=sys.stderr)


def median_ms(fn, budget=2.0, least=10, most=2000):
    """Median per-call time of `fn` in ms: a warm-up, then calls for about `budget` seconds."""
    for _ in range(3):
        fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    n = int(min(most, max(least, budget / one)))
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2] * 1e3


def time_peers(out, name, threads, peers):
    torch.set_num_threads(threads)
    model, inputs = build(name)
    inputs = [torch.from_numpy(np.load(os.path.join(out, f"{name}.in{i}.npy"))) for i in range(len(inputs))]
    onnx_path = os.path.join(out, f"{name}.onnx")
    for peer in peers:
        try:
            if peer == "eager":
                with torch.no_grad():
                    ms = median_ms(lambda: model(*inputs))
            elif peer == "frozen":
                with torch.no_grad():
                    f = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(model)))
                    ms = median_ms(lambda: f(*inputs))
            elif peer == "compile":
                with torch.no_grad():
                    c = torch.compile(model)
                    t = time.perf_counter()
                    c(*inputs)
                    print(f"{name} compile_first {(time.perf_counter() - t) * 1e3:.1f}")
                    ms = median_ms(lambda: c(*inputs))
            elif peer == "ort":
                import onnxruntime as ort

                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                s = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
                feed = {i.name: x.numpy() for i, x in zip(s.get_inputs(), inputs)}
                ms = median_ms(lambda: s.run(None, feed))
            elif peer == "openvino":
                import openvino as ov

                core = ov.Core()
                # float32 as every other side: on CPUs with AVX512_BF16 or AMX, OpenVINO
                # otherwise computes in bfloat16 (about twice as fast, and less accurate).
                config = {
                    "INFERENCE_NUM_THREADS": threads,
                    "PERFORMANCE_HINT": "LATENCY",
                    "INFERENCE_PRECISION_HINT": "f32",
                }
                cm = core.compile_model(onnx_path, "CPU", config)
                req = cm.create_infer_request()
                arrays = [x.numpy() for x in inputs]
                ms = median_ms(lambda: req.infer(arrays))
            else:
                sys.exit(f"unknown peer {peer}")
            print(f"{name} {peer} {ms:.4f}")
        except Exception as e:
            print(f"{name} {peer} nan  # {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        sys.stdout.flush()


def main(argv):
    if len(argv) >= 2 and argv[0] == "write":
        write(argv[1])
    elif len(argv) >= 4 and argv[0] == "time":
        peers = argv[4:] or ["eager", "frozen", "compile", "ort", "openvino"]
        time_peers(argv[1], argv[2], int(argv[3]), peers)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
