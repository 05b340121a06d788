#!/usr/bin/env python3
"""Prints what real PyTorch gives for each top-level def of a TorchScript .py file: the graph
(or code), or the compile error. Lit tests under test/Frontend/ check Ember against this.

    ~/.cache/torch-venv/bin/python tools/gen/torch_graphs.py FILE.py [--code|--inlined|--filecheck]

--filecheck prints each graph (with --inlined, the inlined graph) as FileCheck lines to paste above its def: the header and body
as CHECK-NEXT lines, the hoisted constants as CHECK-DAG, numbered values captured
(`%[[V5:[0-9]+]]`), named values literal, class types without the module part, source
comments dropped. Named values other than the inputs are captured with any version suffix
(`%[[Vy_3:y(\.[0-9]+)?]]`): Ember numbers the versions of a name in its own order.

Files with `# -----` separators are split like `ember-opt --split-input-file`; each part is
loaded as its own module (so errors in one do not hide the others).
"""

import importlib.util
import os
import re
import sys
import tempfile
import traceback
import warnings

import torch

warnings.filterwarnings("ignore")


def filecheck(name, graph, idx):
    """FileCheck lines for `graph` (see the module doc)."""
    defined = set()

    inputs = set(re.findall(r"%([A-Za-z0-9_.]+) :", graph.split("):\n")[0]))

    def value(m):
        v = m.group(1)
        if v in inputs:
            return "%" + v
        var = "V" + re.sub(r"[^A-Za-z0-9]", "_", v)
        if v in defined:
            return f"%[[{var}]]"
        defined.add(v)
        if v.isdigit():
            return f"%[[{var}:[0-9]+]]"
        # Ember may number a name's versions differently: match the name, any suffix.
        base = re.sub(r"\.[0-9]+$", "", v)
        return f"%[[{var}:{re.escape(base)}(\.[0-9]+)?]]"

    out = [f"# CHECK-LABEL: # {name}{{{{$}}}}"]
    first_body = True
    for line in graph.rstrip().split("\n"):
        line = re.sub(r" # [^ ]+:\d+:\d+$", "", line)
        line = line.replace(f"__torch__.part{idx}.", "__torch__.")
        line = line.replace("[[", "{{\\[\\[}}")
        text = re.sub(r"%([A-Za-z0-9_.]+)", value, line).strip()
        if line.startswith("graph(") or line.startswith("      %"):
            out.append(f"# CHECK-NEXT: {text}")
        elif line.startswith("  %") and re.search(r"= prim::(Constant|Uninitialized)", line):
            out.append(f"# CHECK-DAG: {text}")
        elif first_body:
            out.append(f"# CHECK: {text}")
            first_body = False
        else:
            out.append(f"# CHECK-NEXT: {text}")
    return "\n".join(out)


def run_part(text, path, idx, mode):
    d = tempfile.mkdtemp()
    fname = os.path.join(d, os.path.basename(path))
    with open(fname, "w") as f:
        # keep line numbers: pad with the lines of the previous parts
        f.write(text)
    spec = importlib.util.spec_from_file_location(f"part{idx}", fname)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[f"part{idx}"] = mod
    try:
        spec.loader.exec_module(mod)
    except Exception as e:
        print(f"## part {idx}: import failed: {type(e).__name__}: {e}")
        return
    import ast
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        fn = getattr(mod, node.name)
        if mode != "filecheck":
            print(f"# {node.name}")
        try:
            s = torch.jit.script(fn)
            if mode == "code":
                print(s.code)
            elif mode == "inlined":
                print(s.inlined_graph)
            elif mode == "filecheck":
                g = s.inlined_graph if "--inlined" in sys.argv else s.graph
                print(filecheck(node.name, str(g), idx))
            else:
                print(s.graph)
        except Exception as e:
            print(f"# {node.name}: ERROR {type(e).__name__}: {e}")


def main():
    path = [a for a in sys.argv[1:] if not a.startswith("--")][0]
    mode = "graph"
    if "--code" in sys.argv:
        mode = "code"
    if "--inlined" in sys.argv:
        mode = "inlined"
    if "--filecheck" in sys.argv:
        mode = "filecheck"
    lines = open(path).read().split("\n")
    parts, cur, start = [], [], 0
    for i, l in enumerate(lines):
        if l.strip() in ("# -----", "// -----"):
            parts.append((start, cur))
            cur, start = [], i + 1
        else:
            cur.append(l)
    parts.append((start, cur))
    for idx, (start, body) in enumerate(parts):
        text = "\n" * start + "\n".join(body) + "\n"
        run_part(text, path, idx, mode)


if __name__ == "__main__":
    main()
