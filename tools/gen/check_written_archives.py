#!/usr/bin/env python3
"""The oracle of Ember's archive writer: for every archive of the .pt corpus (test/pt), Ember
writes it back (`ember-opt X.pt -o OUT.pt`), PyTorch loads what Ember wrote with
torch.jit.load, runs it on the corpus inputs (X.npz) and compares with the outputs PyTorch
recorded for the original (X.npz's output_N), bit for bit.
Writes test/pt/WRITTEN.tsv: name, then `ok` or what failed; and test/pt/WRITTEN.code, the
`module.code` PyTorch prints for each archive it loaded (likewise for the other corpora).

Likewise every program of the script corpus (test/script/GROUP/NAME.py with its runs NAME.npz,
NAME.run1.npz, ...): Ember writes its last def as PyTorch saves a scripted function
(`ember-opt NAME.py -o OUT.pt`), PyTorch loads and calls it on each run's inputs and the
results must equal the recorded ones (or raise where PyTorch raised); test/script/WRITTEN.tsv.
And every module defined in source (test/modules): Ember constructs it and writes it as
`torch.jit.script(M()).save()` would; test/modules/WRITTEN.tsv (`--modules-only` for just these).
Run with the torch venv after building ember-opt:

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


# `module.code` (the forward PyTorch prints) of the archive the last check loaded, and of
# each checked archive by name; each main writes them to WRITTEN.code beside WRITTEN.tsv.
LOADED_CODE = []
CODES = {}


def loaded(module):
    """`module`, its printed forward kept for `record_code`."""
    try:
        LOADED_CODE.append(module.code)
    except Exception as e:  # noqa: BLE001 (a module PyTorch cannot print is worth a record)
        LOADED_CODE.append(f"<module.code failed: {e}>")
    return module


def record_code(name):
    """Files the code of the archive the last check loaded (if it loaded one) under `name`."""
    if LOADED_CODE:
        CODES[name] = LOADED_CODE.pop()
    LOADED_CODE.clear()


def write_codes(folder, rows):
    """WRITTEN.code: `module.code` of each archive of `rows` that PyTorch loaded."""
    with open(os.path.join(folder, "WRITTEN.code"), "w") as out:
        out.write("# Written by tools/gen/check_written_archives.py: module.code of each archive Ember\n")
        out.write("# wrote, as PyTorch prints it after torch.jit.load.\n")
        for name, _ in rows:
            if name in CODES:
                out.write(f"\n## {name}\n{CODES[name].rstrip()}\n")


def check(pt, npz, tmp, frozen=False):
    """`ok` when PyTorch runs Ember's archive of `pt` to the recorded outputs: bit for bit, or
    (`frozen`: `ember-opt --freeze`, whose folded weights round differently) within rtol 1e-4."""
    out = os.path.join(tmp, os.path.basename(pt))
    flags = ["--freeze"] if frozen else []
    r = subprocess.run([EMBER_OPT, pt, *flags, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return "ember: " + (r.stderr.strip().splitlines() or ["failed"])[-1]
    try:
        theirs = loaded(torch.jit.load(out))
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
        g = g.detach()
        same = torch.allclose(g, w, rtol=1e-4, atol=1e-5) if frozen and g.is_floating_point() else torch.equal(g, w)
        if g.shape != w.shape or not same:
            return f"output {i} differs"
    return "ok"


sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))


def decode(arrays, i, ty):
    """Input i of a call whose parameter has type `ty` (str of a torch JitType), decoded as
    tools/gen/opcases/common.py encodes it."""
    key = f"in{i}"
    if ty.startswith("Optional[") and ty.endswith("]"):
        if key not in arrays.files and f"{key}_0" not in arrays.files:
            return None
        ty = ty[len("Optional["):-1]
    if ty in ("List[Tensor]", "List[str]"):
        items = []
        while f"{key}_{len(items)}" in arrays.files or f"{key}_{len(items)}__bf16" in arrays.files:
            items.append(decode(arrays, f"{i}_{len(items)}", ty[5:-1]))
        return items
    raw = arrays[key] if key in arrays.files else None
    if ty.startswith("Union["):
        # Stored as what the value was: a str has its marker.
        return decode(arrays, i, "str" if f"{key}__str" in arrays.files else "int" if raw.dtype.kind in "iu" else "float")
    if ty.startswith("Tuple[") and raw is not None and raw.ndim == 1:
        return tuple(raw.tolist())
    if ty == "Tensor":
        if raw is None and f"{key}__bf16" in arrays.files:
            return torch.from_numpy(arrays[f"{key}__bf16"].view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(raw.copy())
    if ty == "str":
        return bytes(raw.astype(np.uint8)).decode()
    if ty in ("int", "float", "bool"):
        return {"int": int, "float": float, "bool": bool}[ty](raw.item())
    if ty in ("List[int]", "List[float]", "List[bool]"):
        return raw.tolist()
    raise TypeError(f"input type {ty}")


def check_script(py, runs, tmp):
    from opcases.common import put_outputs

    out = os.path.join(tmp, "program.pt")
    r = subprocess.run([EMBER_OPT, py, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return "ember: " + (r.stderr.strip().splitlines() or ["failed"])[-1][:200]
    try:
        m = loaded(torch.jit.load(out))
    except Exception as e:
        return "torch.jit.load: " + str(e).strip().splitlines()[0][:200]
    types = [str(a.type) for a in m.forward.schema.arguments[1:]]
    for run in runs:
        arrays = np.load(run)
        try:
            inputs = [decode(arrays, i, t) for i, t in enumerate(types)]
        except Exception as e:
            return f"not checked: {e}"
        try:
            result = m(*inputs)
        except Exception as e:
            if "error" in arrays.files:
                continue
            return "run: " + str(e).strip().splitlines()[0][:200]
        if "error" in arrays.files:
            return "PyTorch's original raised, Ember's archive returned"
        got = {}
        put_outputs(got, result)
        want = {k: arrays[k] for k in arrays.files if k.startswith("out")}
        if sorted(got) != sorted(want):
            return f"outputs {sorted(got)}, recorded {sorted(want)}"
        for k, w in want.items():
            g = np.asarray(got[k])
            if g.shape != w.shape or (
                not np.array_equal(g, w, equal_nan=g.dtype.kind == "f")
                and not (g.dtype.kind == "f" and np.allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True))
            ):
                return f"{os.path.basename(run)}: {k} differs"
    return "ok"


def script_cases():
    root = os.path.join(ROOT, "test", "script")
    for group in sorted(os.listdir(root)):
        folder = os.path.join(root, group)
        if not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            if not f.endswith(".py"):
                continue
            stem = os.path.join(folder, f[:-3])
            runs = [stem + ".npz"] if os.path.exists(stem + ".npz") else []
            while runs and os.path.exists(f"{stem}.run{len(runs)}.npz"):
                runs.append(f"{stem}.run{len(runs)}.npz")
            if runs:
                yield f"{group}/{f[:-3]}", os.path.join(folder, f), runs


def frozen_names(folder):
    path = os.path.join(folder, "FROZEN.tsv")
    if not os.path.exists(path):
        return set()
    return {l.split("\t")[0] for l in open(path) if l.strip() and not l.startswith("#")}


def main():
    if sys.argv[1:] == ["--modules-only"]:
        return main_modules()
    if sys.argv[1:] != ["--pt-only"]:
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for name, py, runs in script_cases():
                status = check_script(py, runs, tmp)
                rows.append((name, status))
                record_code(name)
                if status != "ok":
                    print(f"{name}\t{status}", file=sys.stderr)
        with open(os.path.join(ROOT, "test", "script", "WRITTEN.tsv"), "w") as out:
            out.write("# Written by tools/gen/check_written_archives.py: PyTorch loading the archive Ember\n")
            out.write("# writes of each program's last def and calling it on the recorded inputs.\n")
            for name, status in rows:
                out.write(f"{name}\t{status}\n")
        write_codes(os.path.join(ROOT, "test", "script"), rows)
    main_pt()
    main_modules()


def main_modules():
    """The modules defined in source (test/modules): Ember constructs each and writes it as
    `torch.jit.script(M()).save()` would; PyTorch runs it to the recorded outputs."""
    folder = os.path.join(ROOT, "test", "modules")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in sorted(os.listdir(folder)):
            if not f.endswith(".py"):
                continue
            stem = os.path.join(folder, f[:-3])
            runs = [stem + ".npz"]
            while os.path.exists(f"{stem}.run{len(runs)}.npz"):
                runs.append(f"{stem}.run{len(runs)}.npz")
            status = check_script(stem + ".py", runs, tmp)
            rows.append((f[:-3], status))
            record_code(f[:-3])
            print(f"modules/{f[:-3]}\t{status}", file=sys.stderr)
    with open(os.path.join(folder, "WRITTEN.tsv"), "w") as out:
        out.write("# Written by tools/gen/check_written_archives.py: PyTorch loading the archive Ember\n")
        out.write("# writes of each module it constructs and calling it on the recorded inputs.\n")
        for name, status in rows:
            out.write(f"{name}\t{status}\n")
    write_codes(folder, rows)


def main_pt():
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
                record_code(name)
                print(f"{name}\t{status}", file=sys.stderr)
                # Frozen too, for the archives PyTorch freezes (FROZEN.tsv).
                if name in frozen_names(folder):
                    status = check(os.path.join(folder, f), npz, tmp, frozen=True)
                    rows.append((name + ".frozen", status))
                    record_code(name + ".frozen")
                    print(f"{name}.frozen\t{status}", file=sys.stderr)
    with open(os.path.join(corpus, "WRITTEN.tsv"), "w") as out:
        out.write("# Written by tools/gen/check_written_archives.py: PyTorch loading the archive Ember\n")
        out.write("# writes of each corpus model and running it to the original's outputs.\n")
        for name, status in rows:
            out.write(f"{name}\t{status}\n")
    write_codes(corpus, rows)


if __name__ == "__main__":
    main()
