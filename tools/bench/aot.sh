#!/usr/bin/env bash
# Whole models compiled ahead of time by emberc, per call after warm-up (medians), beside
# `ember-run` (its JIT executor, the same machine and run) and frozen TorchScript; the sides
# alternated ROUNDS times, the best round of each counts. Then whole processes: start to the
# first resnet18 result (hyperfine), and the size of the stripped resnet18 executable with its
# weights in a file beside it.
#
#     tools/bench/aot.sh [ROUNDS] [THREADS] [MODEL ...]
#
# WHOLE_PROCESS=0 skips the whole-process part.
# The models are tools/bench/models.py's (target/bench-models, written with the torch venv,
# $PYTHON, default ~/.cache/torch-venv/bin/python); the AOT executables are
# examples/aot/run_model.c linked with the object and the release libember_runtime.a.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2}
THREADS=${2:-2}
shift $(($# < 2 ? $# : 2))
MODELS=${*:-mlp lstm_pointwise chain encoder mobilenet_v3_small resnet18}
WHOLE_PROCESS=${WHOLE_PROCESS:-1}
# The CPU the objects are compiled for (emberc --cpu; its default is portable x86-64).
CPU=${CPU:-native}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
T=${CARGO_TARGET_DIR:-target}
DIR=$T/bench-models
cargo build --release -q -p ember-run -p emberc
cargo build --release -q -p ember-runtime --lib
[ -f "$DIR/resnet18.pt" ] || "$PY" tools/bench/models.py write "$DIR"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

link() { # NAME OBJECT OUT
  cc -O2 -DEMBER_MODEL="$1" -Iruntime/include examples/aot/run_model.c "$2" \
    "$T/release/libember_runtime.a" -lpthread -ldl -lm -Wl,--gc-sections -o "$3"
}
median_us() { awk '/^bench:/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1) }'; }

for m in $MODELS; do
  # Profiled on the sample inputs: pointwise chains become fusion groups, as in ember-run.
  examples=()
  for i in "$DIR/$m".in*.npy; do examples+=(--example "$i"); done
  "$T/release/emberc" "$DIR/$m.pt" -o "$W/$m.o" --name "$m" --cpu "$CPU" "${examples[@]}"
  link "$m" "$W/$m.o" "$W/run_$m"
done
printf "%-20s %12s %12s %12s\n" model "AOT us" "ember-run us" "frozen TS us"
for m in $MODELS; do
  ins=$(ls "$DIR/$m".in*.npy)
  calls=200; [ "$m" = resnet18 ] && calls=30
  aot=""; jit=""; ts=""
  for r in $(seq "$ROUNDS"); do
    a=$(RAYON_NUM_THREADS=$THREADS "$W/run_$m" $ins --bench $calls | median_us)
    j=$(RAYON_NUM_THREADS=$THREADS "$T/release/ember-run" "$DIR/$m.pt" $ins --bench $calls 2>&1 >/dev/null | median_us)
    f=$("$PY" tools/bench/models.py time "$DIR" "$m" "$THREADS" | awk '$2 == "frozen" { print $3 * 1000 }')
    aot=$(printf "%s\n%s\n" "$aot" "$a" | sed '/^$/d' | sort -g | head -1)
    jit=$(printf "%s\n%s\n" "$jit" "$j" | sed '/^$/d' | sort -g | head -1)
    ts=$(printf "%s\n%s\n" "$ts" "$f" | sed '/^$/d' | sort -g | head -1)
  done
  printf "%-20s %12.1f %12.1f %12.1f\n" "$m" "$aot" "$jit" "$ts"
done

[ "$WHOLE_PROCESS" = 1 ] || exit 0
echo "== whole process: start to the first resnet18 result"
"$T/release/emberc" "$DIR/resnet18.pt" -o "$W/r18f.o" --name resnet18 --weights file --cpu "$CPU" \
  --example "$DIR/resnet18.in0.npy"
link resnet18 "$W/r18f.o" "$W/run_r18f"
hyperfine -N --warmup 2 --runs 20 \
  "$W/run_resnet18 $DIR/resnet18.in0.npy" \
  "$W/run_r18f --weights $W/r18f.weights $DIR/resnet18.in0.npy" \
  "$T/release/ember-run $DIR/resnet18.pt $DIR/resnet18.in0.npy"
strip -o "$W/stripped" "$W/run_r18f"
echo "stripped resnet18 executable, weights in a file: $(stat -c %s "$W/stripped") bytes (weights $(stat -c %s "$W/r18f.weights") bytes)"
