#!/usr/bin/env python3
"""A survey of real models: scripts or traces models of torchvision, timm, transformers and
small audio modules with random weights (fixed seeds, no downloads), saves each under
target/zoo/NAME/ (model.pt, in<i>.npy, out<i>.npy in depth-first order of the result's
tensors, kinds.txt with every node kind of the inlined graph), then runs each with the release
ember-run and compares. Not a test: a tool for finding the operators real models need.

    ~/.cache/torch-venv/bin/python tools/gen/zoo_survey.py save [NAME-SUBSTRING ...]
    ~/.cache/torch-venv/bin/python tools/gen/zoo_survey.py run  [NAME-SUBSTRING ...]

`run` needs `cargo build --release -p ember-run`; it prints one line per model (ok, mismatch
or Ember's error) and a summary, and writes target/zoo/RESULTS.json.
"""
import json
import os
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "target", "zoo")
EMBER_RUN = os.path.join(ROOT, "target", "release", "ember-run")


# ---------------------------------------------------------------------------------------------
# Hand-written audio models (torchaudio does not install for this torch): wav2vec-like and
# conformer-like blocks built from the layers those models use.


class ConformerConv(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, 7, padding=3, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x):
        y = self.ln(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = F.silu(self.bn(self.dw(y)))
        return x + self.pw2(y).transpose(1, 2)


class Conformer(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.sub = nn.Conv2d(1, 4, 3, stride=2)
        self.proj = nn.Linear(4 * 19, d)
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.mha = nn.MultiheadAttention(d, heads, batch_first=True)
        self.conv = ConformerConv(d)
        self.out = nn.Linear(d, 10)

    def forward(self, feats):
        x = F.relu(self.sub(feats.unsqueeze(1)))
        b, c, t, f = x.shape
        x = self.proj(x.permute(0, 2, 1, 3).reshape(b, t, c * f))
        x = x + 0.5 * self.ff(x)
        x = x + self.mha(x, x, x, need_weights=False)[0]
        x = self.conv(x)
        return F.log_softmax(self.out(x), dim=-1)


class Wav2VecLike(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.fe = nn.Sequential(
            nn.Conv1d(1, d, 10, 5), nn.GroupNorm(d, d), nn.GELU(),
            nn.Conv1d(d, d, 3, 2), nn.GELU(), nn.Conv1d(d, d, 2, 2), nn.GELU())
        self.pos = nn.Conv1d(d, d, 9, padding=4, groups=4)
        layer = nn.TransformerEncoderLayer(d, 4, 64, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d, 12)

    def forward(self, wav):
        x = self.fe(wav.unsqueeze(1))
        x = x + F.gelu(self.pos(x))
        x = self.enc(x.transpose(1, 2))
        return self.head(x)


class Interpolate(nn.Module):
    """Every mode of F.interpolate, scripted."""

    def forward(self, x):
        a = F.interpolate(x, scale_factor=2.0, mode="nearest")
        b = F.interpolate(x, size=[7, 9], mode="bilinear", align_corners=False)
        c = F.interpolate(x, size=[5, 6], mode="bicubic", align_corners=True)
        d = F.interpolate(x, scale_factor=1.5, mode="nearest-exact")
        e = F.interpolate(x, size=[3, 3], mode="area")
        f = F.interpolate(x, size=[4, 4], mode="bilinear", antialias=True)
        return a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum()


# ---------------------------------------------------------------------------------------------


def tv(name, **kw):
    import torchvision

    return lambda: torchvision.models.get_model(name, weights=None, **kw)


def timm_model(name, **kw):
    import timm

    return lambda: timm.create_model(name, pretrained=False, **kw)


class HF(nn.Module):
    """A transformers model called with tuple outputs and no cache (what tracing needs)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x, return_dict=False, use_cache=False) if self.cache_arg else self.model(x, return_dict=False)

    @property
    def cache_arg(self):
        import inspect

        return "use_cache" in inspect.signature(self.model.forward).parameters


def hf_bert():
    from transformers import BertConfig, BertModel

    cfg = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=64, torchscript=True)
    return HF(BertModel(cfg))


def hf_gpt2():
    from transformers import GPT2Config, GPT2Model

    cfg = GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=64, torchscript=True)
    return HF(GPT2Model(cfg))


def hf_vit():
    from transformers import ViTConfig, ViTModel

    cfg = ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                    image_size=32, patch_size=8, torchscript=True)
    return HF(ViTModel(cfg))


def hf_wav2vec2():
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    cfg = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                         conv_dim=(32, 32), conv_stride=(5, 2), conv_kernel=(10, 3),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
                         do_stable_layer_norm=False, torchscript=True)
    return HF(Wav2Vec2Model(cfg))


def hf_whisper():
    from transformers import WhisperConfig, WhisperModel

    cfg = WhisperConfig(vocab_size=100, d_model=32, encoder_layers=2, decoder_layers=2,
                        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                        decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=50,
                        max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                        decoder_start_token_id=1, torchscript=True)
    return HF(WhisperModel(cfg).get_encoder())


def hf_t5():
    from transformers import T5Config, T5EncoderModel

    cfg = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, torchscript=True)
    return HF(T5EncoderModel(cfg))


def img(n=1, c=3, h=224, w=224):
    return lambda: [torch.randn(n, c, h, w)]


def ids(n=2, t=12, vocab=100):
    return lambda: [torch.randint(0, vocab, (n, t))]


# name, builder, inputs, mode ("script" or "trace")
MODELS = [
    ("tv_resnet18", tv("resnet18"), img(), "script"),
    ("tv_mobilenet_v3_small", tv("mobilenet_v3_small"), img(), "script"),
    ("tv_efficientnet_b0", tv("efficientnet_b0"), img(), "script"),
    ("tv_convnext_tiny", tv("convnext_tiny"), img(), "script"),
    ("tv_regnet_y_400mf", tv("regnet_y_400mf"), img(), "script"),
    ("tv_densenet121", tv("densenet121"), img(), "script"),
    ("tv_googlenet", tv("googlenet", aux_logits=False, init_weights=True), img(), "script"),
    ("tv_inception_v3", tv("inception_v3", aux_logits=False, init_weights=True), img(h=299, w=299), "script"),
    ("tv_shufflenet_v2_x0_5", tv("shufflenet_v2_x0_5"), img(), "script"),
    ("tv_squeezenet1_1", tv("squeezenet1_1"), img(), "script"),
    ("tv_mnasnet0_5", tv("mnasnet0_5"), img(), "script"),
    ("tv_swin_t", tv("swin_t"), img(), "script"),
    ("tv_vit_b_16", tv("vit_b_16"), img(), "script"),
    ("tv_maxvit_t", tv("maxvit_t"), img(), "trace"),
    ("tv_fcn_resnet50", tv("fcn_resnet50", weights_backbone=None), img(h=128, w=128), "script"),
    ("tv_deeplabv3_mobilenet_v3_large", tv("deeplabv3_mobilenet_v3_large", weights_backbone=None), img(h=128, w=128), "script"),
    ("tv_lraspp_mobilenet_v3_large", tv("lraspp_mobilenet_v3_large", weights_backbone=None), img(h=128, w=128), "script"),
    ("tv_deeplabv3_trace", tv("deeplabv3_mobilenet_v3_large", weights_backbone=None), img(h=128, w=128), "trace"),
    ("tv_fasterrcnn_mobilenet_v3_large_320_fpn", tv("fasterrcnn_mobilenet_v3_large_320_fpn", weights_backbone=None),
     lambda: [[torch.rand(3, 200, 240)]], "script"),
    ("tv_ssdlite320_mobilenet_v3_large", tv("ssdlite320_mobilenet_v3_large", weights_backbone=None),
     lambda: [[torch.rand(3, 320, 320)]], "script"),
    ("tv_retinanet_resnet50_fpn", tv("retinanet_resnet50_fpn", weights_backbone=None, min_size=256, max_size=256),
     lambda: [[torch.rand(3, 256, 256)]], "script"),
    ("tv_maskrcnn_resnet50_fpn", tv("maskrcnn_resnet50_fpn", weights_backbone=None, min_size=256, max_size=256),
     lambda: [[torch.rand(3, 256, 256)]], "script"),
    ("tv_keypointrcnn_resnet50_fpn", tv("keypointrcnn_resnet50_fpn", weights_backbone=None, min_size=256, max_size=256),
     lambda: [[torch.rand(3, 256, 256)]], "script"),
    ("tv_fcos_resnet50_fpn", tv("fcos_resnet50_fpn", weights_backbone=None, min_size=256, max_size=256),
     lambda: [[torch.rand(3, 256, 256)]], "script"),
    ("tv_r3d_18", tv("r3d_18"), lambda: [torch.randn(1, 3, 8, 64, 64)], "script"),
    ("tv_mc3_18", tv("mc3_18"), lambda: [torch.randn(1, 3, 8, 64, 64)], "script"),
    ("tv_r2plus1d_18", tv("r2plus1d_18"), lambda: [torch.randn(1, 3, 8, 64, 64)], "script"),
    ("tv_raft_small", tv("raft_small"), lambda: [torch.rand(1, 3, 128, 128), torch.rand(1, 3, 128, 128)], "script"),
    ("timm_vit_tiny_patch16_224", timm_model("vit_tiny_patch16_224"), img(), "script"),
    ("timm_vit_tiny_trace", timm_model("vit_tiny_patch16_224"), img(), "trace"),
    ("timm_deit_tiny", timm_model("deit_tiny_patch16_224"), img(), "trace"),
    ("timm_convnext_atto", timm_model("convnext_atto"), img(), "script"),
    ("timm_efficientnet_b0", timm_model("efficientnet_b0"), img(), "script"),
    ("timm_resnet18", timm_model("resnet18"), img(), "script"),
    ("timm_mobilevit_xxs", timm_model("mobilevit_xxs"), img(h=256, w=256), "trace"),
    ("timm_swin_tiny", timm_model("swin_tiny_patch4_window7_224"), img(), "trace"),
    ("timm_levit_128s", timm_model("levit_128s"), img(), "trace"),
    ("timm_regnetx_002", timm_model("regnetx_002"), img(), "script"),
    ("hf_bert", hf_bert, ids(), "trace"),
    ("hf_gpt2", hf_gpt2, ids(), "trace"),
    ("hf_t5_encoder", hf_t5, ids(), "trace"),
    ("hf_vit", hf_vit, img(h=32, w=32), "trace"),
    ("hf_wav2vec2", hf_wav2vec2, lambda: [torch.randn(1, 1600)], "trace"),
    ("hf_whisper_encoder", hf_whisper, lambda: [torch.randn(1, 16, 100)], "trace"),
    ("audio_conformer", Conformer, lambda: [torch.randn(2, 41, 40)], "script"),
    ("audio_wav2vec_like", Wav2VecLike, lambda: [torch.randn(2, 1600)], "script"),
    ("interpolate_modes", Interpolate, lambda: [torch.randn(1, 2, 5, 6)], "script"),
]


def flatten(v, out):
    if isinstance(v, torch.Tensor):
        out.append(v)
    elif isinstance(v, (list, tuple)):
        for x in v:
            flatten(x, out)
    elif isinstance(v, dict):
        for k, x in v.items():
            flatten(x, out)
    elif hasattr(v, "to_tuple"):  # transformers ModelOutput
        flatten(v.to_tuple(), out)
    return out


def kinds_of(graph, acc):
    for node in graph.nodes():
        acc.add(node.kind())
        for b in node.blocks():
            kinds_of(b, acc)
    return acc


def save(selected):
    os.makedirs(OUT, exist_ok=True)
    for name, build, make_inputs, mode in MODELS:
        if selected and not any(s in name for s in selected):
            continue
        d = os.path.join(OUT, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        torch.manual_seed(0)
        try:
            model = build().eval()
            inputs = make_inputs()
            with torch.no_grad():
                if mode == "script":
                    m = torch.jit.script(model)
                else:
                    m = torch.jit.trace(model, tuple(inputs), check_trace=False, strict=False)
                expected = m(*inputs)
            m.save(os.path.join(d, "model.pt"))
        except Exception as e:
            msg = str(e).strip().splitlines()
            print(f"{name}: PyTorch cannot {mode} it: {msg[0] if msg else e}")
            with open(os.path.join(d, "torch_error.txt"), "w") as f:
                f.write(str(e))
            continue
        for i, x in enumerate(inputs):
            if isinstance(x, list):
                for j, t in enumerate(x):
                    np.save(os.path.join(d, f"in{i}_{j}.npy"), t.numpy())
            else:
                np.save(os.path.join(d, f"in{i}.npy"), x.numpy())
        for k, t in enumerate(flatten(expected, [])):
            np.save(os.path.join(d, f"out{k}.npy"), t.detach().numpy())
        kinds = sorted(kinds_of(m.inlined_graph, set()))
        with open(os.path.join(d, "kinds.txt"), "w") as f:
            f.write("\n".join(kinds) + "\n")
        print(f"{name}: saved ({mode}, {len(kinds)} kinds)")


def ember_args(d):
    """ember-run's ARGs for the inputs saved in `d` (lists as `[a, b]`)."""
    groups = {}
    for f in sorted(os.listdir(d)):
        if f.startswith("in") and f.endswith(".npy"):
            key = f[2:-4]
            i, _, j = key.partition("_")
            groups.setdefault(int(i), []).append((int(j) if j else -1, os.path.join(d, f)))
    args = []
    for i in sorted(groups):
        items = sorted(groups[i])
        if items[0][0] == -1:
            args.append(items[0][1])
        else:
            args.append("[" + ", ".join(p for _, p in items) + "]")
    return args


def compare(d, out_dir):
    want = sorted((f for f in os.listdir(d) if f.startswith("out")), key=lambda f: int(f[3:-4]))
    got = []
    with open(os.path.join(out_dir, "result.json")) as f:
        res = json.load(f)

    def walk(v):
        if v["type"] == "tensor":
            got.append(os.path.join(out_dir, v["file"]))
        for item in v.get("items", []):
            if isinstance(item, list):
                for x in item:
                    walk(x)
            else:
                walk(item)

    walk(res)
    if len(got) != len(want):
        return f"{len(got)} tensors out, PyTorch gave {len(want)}"
    # Whole models: rtol 1e-4 (DESIGN.md), with an absolute slack of 1e-4 of the output's
    # largest magnitude for values near zero.
    for w, g in zip(want, got):
        a, b = np.load(os.path.join(d, w)), np.load(g)
        if a.shape != b.shape:
            return f"{w}: shape {b.shape}, PyTorch {a.shape}"
        if a.dtype.kind == "f" and a.size:
            scale = float(np.nanmax(np.abs(a))) if np.isfinite(a).any() else 1.0
            if not np.allclose(b, a, rtol=1e-4, atol=1e-4 * scale, equal_nan=True):
                worst = float(np.nanmax(np.abs(a.astype(np.float64) - b)))
                return f"{w}: max abs difference {worst:.2e} (output scale {scale:.2e})"
        elif a.size and not np.array_equal(a, b):
            return f"{w}: values differ"
    return None


def run(selected):
    results = {}
    for name in sorted(os.listdir(OUT)):
        d = os.path.join(OUT, name)
        if not os.path.isdir(d) or (selected and not any(s in name for s in selected)):
            continue
        if not os.path.exists(os.path.join(d, "model.pt")):
            results[name] = "torch cannot script/trace it"
            continue
        out_dir = os.path.join(d, "ember")
        shutil.rmtree(out_dir, ignore_errors=True)
        cmd = [EMBER_RUN, os.path.join(d, "model.pt"), *ember_args(d), "--out", out_dir]
        t = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            results[name] = "timeout"
            print(f"{name}: timeout")
            continue
        secs = time.time() - t
        if p.returncode != 0:
            err = p.stderr.strip().splitlines()
            results[name] = "error: " + " | ".join(err[:3])
        else:
            bad = compare(d, out_dir)
            results[name] = "ok" if bad is None else "mismatch: " + bad
        print(f"{name}: {results[name]} ({secs:.1f}s)", flush=True)
    ok = sum(v == "ok" for v in results.values())
    print(f"{ok} of {len(results)} models run and match")
    with open(os.path.join(OUT, "RESULTS.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("save", "run"):
        sys.exit(__doc__)
    torch.set_num_threads(1)
    (save if sys.argv[1] == "save" else run)(sys.argv[2:])
