#!/usr/bin/env python3
"""The oracle of Ember's archive writer: for every archive of the .pt corpus (test/pt), Ember
writes it back (`ember-opt X.pt -o OUT.pt`), PyTorch loads what Ember wrote with
torch.jit.load, runs it on the corpus inputs (X.npz) and compares with the original's outputs.
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
    original = torch.jit.load(pt)
    arrays = np.load(npz)
    inputs = []
    while f"input_{len(inputs)}" in arrays.files:
        inputs.append(torch.from_numpy(arrays[f"input_{len(inputs)}"]))
    with torch.no_grad():
        try:
            got = flatten(theirs(*inputs), [])
        except Exception as e:
            return "run: " + str(e).strip().splitlines()[0][:200]
        want = flatten(original(*inputs), [])
    if len(got) != len(want):
        return f"{len(got)} outputs, the original gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not torch.equal(g, w):
            return f"output {i} differs"
    return "ok"


def main():
    corpus = os.path.join(ROOT, "test", "pt")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in sorted(os.listdir(corpus)):
            if not f.endswith(".pt"):
                continue
            name = f[:-3]
            npz = os.path.join(corpus, name + ".npz")
            if not os.path.exists(npz):
                continue
            status = check(os.path.join(corpus, f), npz, tmp)
            rows.append((name, status))
            print(f"{name}\t{status}", file=sys.stderr)
    with open(os.path.join(corpus, "WRITTEN.tsv"), "w") as out:
        out.write("# Written by tools/gen/check_written_archives.py: PyTorch loading the archive Ember\n")
        out.write("# writes of each corpus model and running it to the original's outputs.\n")
        for name, status in rows:
            out.write(f"{name}\t{status}\n")


if __name__ == "__main__":
    main()
