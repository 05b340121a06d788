#!/usr/bin/env python3
"""The zoo's per-model load time and per-call time, Ember beside PyTorch on the same machine in
the same run (run with the torch venv; tools/bench/zoo.sh builds Ember's side first):

    ~/.cache/torch-venv/bin/python tools/bench/zoo.py EMBER_BENCH [--rounds 2] [--loads 5]
        [--calls 20] [--only SUBSTRING] [--zoo DIR] [--threads N]

EMBER_BENCH is compiler/examples/zoo_bench.rs built in release. For every archive of
test/zoo/MANIFEST.json that is present (test/zoo/models, or DIR = target/zoo) the two sides
alternate, Ember then PyTorch, for --rounds rounds: load time (median of --loads loads after a
warm-up load: Ember's load_module, torch.jit.load) and per-call time after warm-up (median of
--calls calls after 3 warm-up calls: Ember's Module::forward on its kernel pool, the loaded
module's call under torch.no_grad()); archives Ember does not run are listed without times.
Each side's best median over the rounds is reported, as
a Markdown table with the ratios (Ember / PyTorch: below 1 is faster), the CPU and the load
average before and after."""
import argparse
import io
import json
import os
import platform
import subprocess
import sys
import time
import warnings

import numpy as np
import torch
import torchvision  # noqa: F401  (registers torchvision's operators, which detection models call)

warnings.filterwarnings("ignore")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def torch_side(pt, npz, spec, loads, calls):
    data = np.load(npz)
    inputs = [torch.from_numpy(data[f"input_{i}"]) for i in range(len(spec))]
    args = [t if s == "T" else [t] for t, s in zip(inputs, spec)]
    torch.jit.load(pt)
    load_times = []
    for _ in range(loads):
        start = time.perf_counter()
        m = torch.jit.load(pt)
        load_times.append((time.perf_counter() - start) * 1e3)
    m.eval()
    call_times = []
    with torch.no_grad():
        for _ in range(3):
            m(*args)
        for _ in range(calls):
            start = time.perf_counter()
            m(*args)
            call_times.append((time.perf_counter() - start) * 1e3)
    return sorted(load_times)[loads // 2], sorted(call_times)[calls // 2]


def ember_side(bench, pt, npz, spec, loads, calls, threads):
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    out = subprocess.run([bench, str(loads), str(calls), pt, npz, ",".join(spec)],
                         capture_output=True, text=True, timeout=3600, env=env).stdout.strip()
    if out.startswith("error"):
        return None, out
    fields = out.split("\t")
    return (float(fields[0]), float(fields[2])), None


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
        name = next(l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("model name"))
        flags = next(l.split(":", 1)[1].split() for l in info.splitlines() if l.startswith("flags"))
        vec = [x for x in ("avx2", "avx512f", "avx512bw", "avx512_vnni") if x in flags]
        return f"{name} ({', '.join(vec)}), {os.cpu_count()} cores"
    except (OSError, StopIteration):
        return platform.processor()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--only", default="")
    ap.add_argument("--zoo", default=os.path.join(ROOT, "target", "zoo"))
    ap.add_argument("--threads", type=int, default=0,
                    help="threads of both sides (torch.set_num_threads, RAYON_NUM_THREADS); "
                         "default: each library's own")
    opts = ap.parse_args()
    if opts.threads:
        torch.set_num_threads(opts.threads)
    manifest = json.load(open(os.path.join(ROOT, "test", "zoo", "MANIFEST.json")))
    load_before = os.getloadavg()
    rows = []
    for key, e in manifest.items():
        if key == "torch" or "archive" not in e or opts.only not in key:
            continue
        pt = os.path.join(ROOT, "test", "zoo", "models", e["archive"])
        if not os.path.exists(pt):
            pt = os.path.join(opts.zoo, e["archive"])
        if not os.path.exists(pt):
            continue
        npz = os.path.join(ROOT, "test", "zoo", "expected", f"{key}.npz")
        best_e, best_t, error = None, None, None
        for _ in range(opts.rounds):
            got, error = ember_side(opts.bench, pt, npz, e["args"], opts.loads, opts.calls,
                                    opts.threads)
            if got is None:
                break  # not comparable: Ember does not run it
            t = torch_side(pt, npz, e["args"], opts.loads, opts.calls)
            best_t = t if best_t is None else (min(best_t[0], t[0]), min(best_t[1], t[1]))
            if got is not None:
                best_e = got if best_e is None else (min(best_e[0], got[0]), min(best_e[1], got[1]))
        rows.append((key, e["tier"], best_e, best_t, error))
        print(f"{key}: ember {best_e} torch {best_t} {error or ''}", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    print(f"CPU: {cpu_name()}; torch {torch.__version__} ({torch.get_num_threads()} threads); "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after\n")
    print("| model | tier | Ember load ms | torch.jit.load ms | ratio | Ember call ms | PyTorch call ms | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for key, tier, e, t, error in rows:
        if e is None:
            reason = (error or "").replace("error: ", "").replace("|", "/")[:70]
            print(f"| {key} | {tier} | — | — | — | — | — | — ({reason}) |")
        else:
            print(f"| {key} | {tier} | {e[0]:.1f} | {t[0]:.1f} | {e[0] / t[0]:.2f} | "
                  f"{e[1]:.2f} | {t[1]:.2f} | {e[1] / t[1]:.2f} |")


if __name__ == "__main__":
    main()
