#!/usr/bin/env python3
"""The oracle of Ember's archive writer: for every archive of the .pt corpus (test/pt), Ember
writes it back (`ember-opt X.pt -o OUT.pt`), PyTorch loads what Ember wrote with
torch.jit.load, runs it on the corpus inputs (X.npz) and compares with the outputs PyTorch
recorded for the original (X.npz's output_N), bit for bit.
Writes test/pt/WRITTEN.tsv: name, then `ok` or what failed. Run with the torch venv after
building ember-opt:

    cargo build -p ember-opt && ~/.cache/torch-venv/bin/python tools/gen/check_written_archives.py
"""

import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMBER_OPT = os.path.join(ROOT, "target", "debug", "ember-opt")


def flatten(v, out):
    if isinstance(v, torch.Tensor):
        out.append(v)
    elif isinstance(v, (list, tuple)):
        for x in v:
            flatten(x, out)
    elif isinstance(v, (bool, int, float)):
        out.append(torch.tensor(v))
    elif isinstance(v, dict):
        for x in v.values():
            flatten(x, out)
    return out


def check(pt, npz, tmp):
    out = os.path.join(tmp, os.path.basename(pt))
    r = subprocess.run([EMBER_OPT, pt, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return "ember: " + (r.stderr.strip().splitlines() or ["failed"])[-1]
    try:
        theirs = torch.jit.load(out)
    except Exception as e:
        return "torch.jit.load: " + str(e).strip().splitlines()[0][:200]
    arrays = np.load(npz)
    inputs = []
    while f"input_{len(inputs)}" in arrays.files:
        inputs.append(torch.from_numpy(arrays[f"input_{len(inputs)}"]))
    with torch.no_grad():
        try:
            got = flatten(theirs(*inputs), [])
        except Exception as e:
            return "run: " + str(e).strip().splitlines()[0][:200]
        # The outputs the corpus recorded when PyTorch wrote the archive (today's PyTorch
        # misreads some old archives, e.g. big-endian ones, which Ember reads right).
        want = []
        while f"output_{len(want)}" in arrays.files:
            want.append(torch.from_numpy(arrays[f"output_{len(want)}"]))
    if len(got) != len(want):
        return f"{len(got)} outputs, PyTorch recorded {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not torch.equal(g.detach(), w):
            return f"output {i} differs"
    return "ok"


def main():
    corpus = os.path.join(ROOT, "test", "pt")
    # The large tier (test/setup/pt_models.sh writes it) when present.
    large = os.path.join(ROOT, "target", "pt-large")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for folder in [corpus, large]:
            if not os.path.isdir(folder):
                continue
            for f in sorted(os.listdir(folder)):
                name = f[:-3]
                npz = os.path.join(folder, name + ".npz")
                if not f.endswith(".pt") or not os.path.exists(npz):
                    continue
                status = check(os.path.join(folder, f), npz, tmp)
                rows.append((name, status))
                print(f"{name}\t{status}", file=sys.stderr)
    with open(os.path.join(corpus, "WRITTEN.tsv"), "w") as out:
        out.write("# Written by tools/gen/check_written_archives.py: PyTorch loading the archive Ember\n")
        out.write("# writes of each corpus model and running it to the original's outputs.\n")
        for name, status in rows:
            out.write(f"{name}\t{status}\n")


if __name__ == "__main__":
    main()
