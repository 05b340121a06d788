#!/usr/bin/env python3
"""Generates the TorchScript frontend conformance corpus (test/script/) with real PyTorch.

    ~/.cache/torch-venv/bin/python tools/gen/gen_script_corpus.py [GROUP ...]

Each GROUP is a module tools/gen/scriptcases/GROUP.py with `def cases(c)` that calls
`c.add(name, source, *runs)` or `c.error(name, source)`. With no arguments every group is
regenerated; a group's folder is emptied first, so removed cases disappear.

For a case NAME of group GROUP this writes, under test/script/GROUP/:
  NAME.py      the TorchScript source as a user writes it (the standard imports first unless the
               source has its own); the entry point is its last top-level def
  NAME.graph   str(torch.jit.script(entry).graph)          (cases PyTorch compiles)
  NAME.code    torch.jit.script(entry).code                 (cases PyTorch compiles)
  NAME.schema  str(torch.jit.script(entry).schema): argument names and defaults, which the
               graph does not hold and the printed code shows
  NAME.npz     the first run: in0.., out0.. or error, encoded as test/ops does (every argument
               is stored, defaults included)
               (tools/gen/opcases/common.py); NAME.run1.npz, NAME.run2.npz, ... the others
  NAME.error   PyTorch's message, for cases PyTorch refuses to script

The file is imported with importlib as module `case_GROUP_NAME` (so inspect.getsource works and
class qualnames are unique): PyTorch names its classes and functions
`__torch__.case_GROUP_NAME.Foo`; Ember's runner strips the module part. Paths in source comments
and messages are repo-relative.
"""

import ast
import glob
import importlib
import importlib.util
import inspect
import os
import re
import shutil
import sys
import textwrap
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from opcases.common import (  # noqa: E402
    REPO,
    _clone,
    _write_npz,
    put_error,
    put_inputs,
    put_outputs,
)

OUT_ROOT = os.path.join(REPO, "test", "script")

HEADER = """\
import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
"""

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)


def module_name(group, name):
    return f"case_{group}_{name}"


def entry_name(source):
    """The last top-level def of `source`."""
    defs = [s.name for s in ast.parse(source).body if isinstance(s, ast.FunctionDef)]
    if not defs:
        raise ValueError("a case needs at least one top-level def")
    return defs[-1]


def full_source(source):
    source = textwrap.dedent(source).strip("\n") + "\n"
    if source.startswith(("import ", "from ")):
        return source
    return HEADER + "\n\n" + source


def relative(text):
    """`text` with repo-relative paths and without the addresses PyTorch prints."""
    text = text.replace(REPO + os.sep, "")
    return re.sub(r" \(of Python compilation unit at: 0x[0-9a-f]+\)", "", text)


class Cases:
    """Collects the cases of one group and writes them."""

    def __init__(self, group):
        self.group = group
        self.dir = os.path.join(OUT_ROOT, group)
        self.names = set()
        self.failures = []

    def _write_source(self, name, source):
        if name in self.names:
            raise ValueError(f"duplicate case name {self.group}/{name}")
        self.names.add(name)
        os.makedirs(self.dir, exist_ok=True)
        path = os.path.join(self.dir, name + ".py")
        with open(path, "w") as f:
            f.write(full_source(source))
        return path

    def _load(self, name, path):
        mod_name = module_name(self.group, name)
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
        with open(path) as f:
            return getattr(module, entry_name(f.read()))

    def add(self, name, source, *runs):
        """A case PyTorch compiles; each run is a tuple of arguments for the entry."""
        path = self._write_source(name, source)
        entry = self._load(name, path)
        try:
            scripted = torch.jit.script(entry)
        except Exception as e:
            self.failures.append(f"{self.group}/{name} does not script:\n{e}")
            return
        with open(os.path.join(self.dir, name + ".graph"), "w") as f:
            f.write(relative(str(scripted.graph)))
        with open(os.path.join(self.dir, name + ".code"), "w") as f:
            f.write(relative(scripted.code))
        with open(os.path.join(self.dir, name + ".schema"), "w") as f:
            f.write(relative(str(scripted.schema)) + "\n")
        signature = inspect.signature(entry)
        for k, args in enumerate(runs):
            if not isinstance(args, tuple):
                args = (args,)
            # Defaults are passed explicitly: graph inputs are every argument.
            bound = signature.bind(*args)
            bound.apply_defaults()
            args = tuple(bound.arguments.values())
            arrays = {}
            put_inputs(arrays, args)
            try:
                put_outputs(arrays, scripted(*[_clone(a) for a in args]))
            except Exception as e:  # PyTorch raised: Ember must raise too.
                put_error(arrays, e)
            suffix = "" if k == 0 else f".run{k}"
            _write_npz(os.path.join(self.dir, f"{name}{suffix}.npz"), arrays)

    def error(self, name, source):
        """A case PyTorch refuses to script: its message goes to NAME.error."""
        path = self._write_source(name, source)
        try:
            entry = self._load(name, path)
            torch.jit.script(entry)
        except Exception as e:
            message = relative(str(e)).strip()
            with open(os.path.join(self.dir, name + ".error"), "w") as f:
                f.write(message + "\n")
            return
        self.failures.append(f"{self.group}/{name} scripts, but is listed as an error case")


def main(argv):
    all_groups = sorted(
        os.path.basename(p)[:-3]
        for p in glob.glob(os.path.join(HERE, "scriptcases", "*.py"))
        if not os.path.basename(p).startswith("_")
    )
    groups = argv or all_groups
    total = 0
    failures = []
    for group in groups:
        if group not in all_groups:
            sys.exit(f"unknown group {group!r}; known: {', '.join(all_groups)}")
        torch.manual_seed(0)
        shutil.rmtree(os.path.join(OUT_ROOT, group), ignore_errors=True)
        c = Cases(group)
        importlib.import_module(f"scriptcases.{group}").cases(c)
        print(f"{group}: {len(c.names)} cases")
        total += len(c.names)
        failures += c.failures
    print(f"total: {total} cases")
    for f in failures:
        print(f"\nFAILED: {f}")
    if failures:
        sys.exit(f"{len(failures)} cases did not behave as declared")


if __name__ == "__main__":
    main(sys.argv[1:])
