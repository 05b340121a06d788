#!/usr/bin/env bash
# The main job on the bundled example: load a TorchScript graph, optimize it with ember-opt and
# print it, run it in the interpreter with ember-run, then compile it to an x86-64 object with
# emberc and run that kernel from a C program.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q -p ember-opt -p ember-run -p emberc
bin=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== ember-opt: constant-propagation, canonicalize, cse, dce, constant-pooling"
"$bin/ember-opt" examples/silu.ir \
  --pass-pipeline=constant-propagation,canonicalize,cse,dce,constant-pooling -o "$work/silu.ir"
cat "$work/silu.ir"

echo "== ember-run: the optimized graph in the interpreter"
"$bin/ember-run" "$work/silu.ir" examples/x.npy examples/b.npy

echo "== emberc: the graph as one fused kernel in an x86-64 object, called from C"
"$bin/emberc" "$work/silu.ir" -o "$work/silu.o" --header "$work/silu.h"
cc -O2 -I"$work" examples/main.c "$work/silu.o" -lm -o "$work/silu"
"$work/silu"
