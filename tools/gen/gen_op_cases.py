#!/usr/bin/env python3
"""Generates the differential op suite (test/ops/) with real PyTorch.

    ~/.cache/torch-venv/bin/python tools/gen/gen_op_cases.py [AREA ...]

Each AREA is a module tools/gen/opcases/AREA.py with `def cases(c)`; with no arguments every
area is regenerated. An area's folder is emptied first, so removed cases disappear.
"""

import glob
import importlib
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opcases.common import OUT_ROOT, Cases  # noqa: E402


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    all_areas = sorted(
        os.path.basename(p)[:-3]
        for p in glob.glob(os.path.join(here, "opcases", "*.py"))
        if not os.path.basename(p).startswith(("_", "common"))
    )
    areas = argv or all_areas
    for area in areas:
        if area not in all_areas:
            sys.exit(f"unknown area {area!r}; known: {', '.join(all_areas)}")
        torch.manual_seed(0)
        out = os.path.join(OUT_ROOT, area)
        shutil.rmtree(out, ignore_errors=True)
        c = Cases(area)
        importlib.import_module(f"opcases.{area}").cases(c)
        print(f"{area}: {len(c.names)} cases")


if __name__ == "__main__":
    main(sys.argv[1:])
