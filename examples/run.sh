#!/usr/bin/env bash
# The main job on the bundled examples. A real model first: torchvision's MobileNetV3 (random
# weights, small width) as torch.jit.script saved it, frozen by ember-opt, run by ember-run
# through the profiling executor (guards, fusion groups), compiled whole by emberc into an
# object that a C program runs (its output checked against PyTorch's recorded output), and
# written back as an archive that PyTorch loads. Then a TorchScript graph: optimized with ember-opt and printed, run in the
# interpreter, compiled to an x86-64 object with emberc and run from a C program.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q -p ember-opt -p ember-run -p emberc
bin=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

model=test/zoo/models/tv_mobilenet_v3_tiny.script.pt
echo "== ember-opt --freeze: $model frozen for inference (batch norms folded, fused kernels)"
"$bin/ember-opt" "$model" --freeze -o "$work/frozen.ir"
echo "$(grep -c ' = ' "$work/frozen.ir") nodes in the frozen graph, $(grep -c 'ember::' "$work/frozen.ir") of them Ember's fused convolution kernels"

echo "== ember-run: the model through the profiling executor; the graph that ran last"
EMBER_LOG=executor "$bin/ember-run" "$model" examples/mobilenet_x.npy --bench 3 --print-optimized-graph 2>"$work/run.err"
grep -E "^(optimize|first calls|bench):|^\[executor\]" "$work/run.err"
echo "the plan that ran: $(grep -c 'prim::TypeCheck' "$work/run.err" || true) guards, $(grep -c ' = prim::TensorExprGroup' "$work/run.err" || true) fusion groups (the rest is in the fused convolutions)"

echo "== emberc: the whole model compiled to an x86-64 object for the input's shape, run from C through ember.h"
# --example profiles the model on the input: its pointwise chains become kernels, and the
# object carries the memory plan of a call on that shape (the first call takes every
# intermediate tensor from one block).
"$bin/emberc" "$model" -o "$work/mobilenet.o" --header "$work/mobilenet.h" --name mobilenet \
  --example examples/mobilenet_x.npy
echo "$(wc -c <"$work/mobilenet.o") bytes of object (code, graph and weights); its header declares:"
grep -E "^static inline|^extern const" "$work/mobilenet.h"
cargo build -q -p ember-runtime --lib
cc -O2 -DEMBER_MODEL=mobilenet -Iruntime/include -I"$work" examples/aot/run_model.c \
  "$work/mobilenet.o" "$bin/libember_runtime.a" -lpthread -ldl -lm -o "$work/run_mobilenet"
# PyTorch's output for this input, recorded by the zoo's generator (test/zoo/expected).
"$work/run_mobilenet" examples/mobilenet_x.npy --memory --expect examples/mobilenet_expected.npy

echo "== ember-opt -o: the frozen model written as an archive torch.jit.load reads, run again"
"$bin/ember-opt" "$model" --freeze -o "$work/frozen.pt"
"$bin/ember-run" "$work/frozen.pt" examples/mobilenet_x.npy

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
