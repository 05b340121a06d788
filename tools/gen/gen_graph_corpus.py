#!/usr/bin/env python3
"""Generate test/corpus/graphs: real TorchScript graphs printed by PyTorch (`str(graph)`).

Run from anywhere with the torch virtual environment:

    ~/.cache/torch-venv/bin/python tools/gen/gen_graph_corpus.py

The cases live in tools/gen/graph_corpus/<category>.py. Every run rewrites the whole
test/corpus/graphs tree and test/corpus/SKIPPED.txt; two runs give identical files.
Absolute paths in source comments are rewritten: this directory becomes `tools/gen/`, the
site-packages directory becomes empty (so `torch/nn/functional.py`).
"""

import argparse
import os
import random
import re
import shutil
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from graph_corpus import registry  # noqa: E402

# Import order fixes the order of scripting, hence TorchScript's name mangling.
CATEGORY_MODULES = [
    "arith",
    "control",
    "containers",
    "optional",
    "strings",
    "exceptions",
    "tensor",
    "calls",
    "features",
    "nn_script",
    "nn_trace",
    "traced",
    "frozen",
    "vision",
    "profiled",
]

MAX_GRAPH_BYTES = 400 * 1024
MAX_TOTAL_BYTES = 15 * 1024 * 1024


def path_rewriter():
    site = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    pairs = [(HERE + os.sep, "tools/gen/"), (site + os.sep, "")]
    # Longest prefix first, in case one directory holds the other.
    pairs.sort(key=lambda p: -len(p[0]))

    def rewrite(text):
        for old, new in pairs:
            text = text.replace(old, new)
        return text

    return rewrite


def one_line(err, rewrite):
    msg = rewrite(str(err)).strip().splitlines()
    first = msg[0] if msg else ""
    # Object addresses would make the log differ between runs.
    first = re.sub(r"0x[0-9a-fA-F]+", "0x?", first)
    return f"{type(err).__name__}: {first}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--out", default=os.path.join(REPO, "test", "corpus"),
                    help="corpus directory (default: test/corpus of this repository)")
    ap.add_argument("--only", default=None, help="run only categories in this comma list")
    args = ap.parse_args()

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    only = set(args.only.split(",")) if args.only else None
    for mod in CATEGORY_MODULES:
        if only is None or mod in only:
            __import__("graph_corpus." + mod)

    rewrite = path_rewriter()
    graphs_dir = os.path.join(args.out, "graphs")
    if only is None and os.path.isdir(graphs_dir):
        shutil.rmtree(graphs_dir)
    elif only is not None:
        for cat in only:
            shutil.rmtree(os.path.join(graphs_dir, cat), ignore_errors=True)

    written = {}
    skipped = []
    seen = set()
    total = 0
    for category, name, produce in registry.CASES:
        key = (category, name)
        if key in seen:
            raise SystemExit(f"duplicate case {category}/{name}")
        seen.add(key)
        torch.manual_seed(0)
        random.seed(0)
        try:
            graphs = produce()
        except Exception as err:  # a case PyTorch cannot script or run is dropped, not edited
            skipped.append(f"{category}/{name}: {one_line(err, rewrite)}")
            print(f"skip {category}/{name}: {one_line(err, rewrite)}", file=sys.stderr)
            continue
        for suffix, graph in graphs:
            text = rewrite(str(graph))
            rel = f"{category}/{name}{suffix}.ir"
            size = len(text.encode())
            if size > MAX_GRAPH_BYTES:
                skipped.append(f"{rel}: too large ({size} bytes)")
                print(f"skip {rel}: too large ({size} bytes)", file=sys.stderr)
                continue
            if total + size > MAX_TOTAL_BYTES:
                skipped.append(f"{rel}: corpus size limit reached")
                print(f"skip {rel}: corpus size limit reached", file=sys.stderr)
                continue
            path = os.path.join(graphs_dir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            total += size
            written[category] = written.get(category, 0) + 1

    if only is None:
        with open(os.path.join(args.out, "SKIPPED.txt"), "w", encoding="utf-8") as f:
            f.write("# Cases dropped by tools/gen/gen_graph_corpus.py (generated; do not edit)\n")
            for line in sorted(skipped):
                f.write(line + "\n")
    for cat in sorted(written):
        print(f"{cat:12} {written[cat]:5}")
    print(f"{'total':12} {sum(written.values()):5} graphs, {total} bytes; {len(skipped)} skipped")


if __name__ == "__main__":
    main()
