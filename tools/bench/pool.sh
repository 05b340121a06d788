#!/usr/bin/env bash
# The kernel pool's idle policy measured both ways: ember-run per call (median after warm-up,
# best of ROUNDS alternated rounds) with the pool's threads spinning between loops (the
# default, EMBER_POOL_SPIN_US=200) and sleeping at once (EMBER_POOL_SPIN_US=0, as rayon's
# idle threads do), on THREADS threads.
#
#     tools/bench/pool.sh [ROUNDS] [THREADS] [MODEL ...]
#
# The models are tools/bench/models.sh's (written once into target/bench-models).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
THREADS=${2:-2}
shift $(($# < 2 ? $# : 2))
MODELS=${*:-mlp lstm_pointwise encoder resnet18 mobilenet_v3_small}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
DIR=${CARGO_TARGET_DIR:-target}/bench-models
cargo build --release -q -p ember-run
BIN=${CARGO_TARGET_DIR:-target}/release/ember-run
[ -f "$DIR/resnet18.pt" ] || "$PY" tools/bench/models.py write "$DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
median() {
    local name=$1 spin=$2 args=() i
    for i in "$DIR/$name".in*.npy; do args+=("$i"); done
    EMBER_POOL_SPIN_US=$spin RAYON_NUM_THREADS=$THREADS "$BIN" "$DIR/$name.pt" "${args[@]}" --bench 100 2>&1 >/dev/null |
        awk '/^bench:/ { for (i = 1; i <= NF; i++) if ($i == "median") printf "%.4f\n", $(i + 1) / 1000 }'
}
for r in $(seq "$ROUNDS"); do
    for m in $MODELS; do
        echo "$m spin $(median "$m" 200)" >>"$TMP/t"
        echo "$m sleep $(median "$m" 0)" >>"$TMP/t"
    done
done
best() { awk -v m="$1" -v p="$2" '$1 == m && $2 == p && (b == "" || $3 < b) { b = $3 } END { print b }' "$TMP/t"; }
echo "threads: $THREADS, rounds: $ROUNDS, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| model | spinning ms | sleeping ms | sleeping / spinning |"
echo "|---|---|---|---|"
for m in $MODELS; do
    s=$(best "$m" spin) z=$(best "$m" sleep)
    echo "| $m | $s | $z | $(awk -v a="$s" -v b="$z" 'BEGIN { printf "%.2fx", b / a }') |"
done
