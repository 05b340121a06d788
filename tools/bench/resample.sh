#!/usr/bin/env bash
# Resampling operators (interpolation, grid sampling, RoIAlign, NMS): Ember
# (runtime/examples/bench_resample.rs, through the interpreter) beside PyTorch eager
# (tools/bench/resample_torch.py) on THREADS cores, run alternately ROUNDS times; prints each
# round's ms per call and PyTorch's best over Ember's best (above 1: Ember is faster).
#
#     tools/bench/resample.sh [ROUNDS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
THREADS=${2:-2}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
cargo build --release -q -p ember-runtime --example bench_resample
BIN=${CARGO_TARGET_DIR:-target}/release/examples/bench_resample
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for r in $(seq "$ROUNDS"); do
    RAYON_NUM_THREADS=$THREADS "$BIN" 20 >"$TMP/ember.$r"
    "$PY" tools/bench/resample_torch.py 20 "$THREADS" >"$TMP/torch.$r"
done
echo "threads: $THREADS, rounds: $ROUNDS, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# Per case (the text before ': '), the ms of every round and the best.
rounds() { awk -F': ' '{ split($2, f, " "); g[$1] = g[$1] (g[$1] == "" ? "" : ", ") f[1]; if (!($1 in b) || f[1] < b[$1]) b[$1] = f[1]; if (!($1 in seen)) { seen[$1] = 1; o[++n] = $1 } } END { for (i = 1; i <= n; i++) print o[i] "|" g[o[i]] "|" b[o[i]] }' "$@"; }
printf '| case | Ember ms | PyTorch ms | PyTorch / Ember (best) |\n|---|---|---|---|\n'
paste -d'|' <(rounds "$TMP"/ember.*) <(rounds "$TMP"/torch.*) |
    awk -F'|' '{ printf "| %s | %s | %s | %.2f |\n", $1, $2, $5, $6 / $3 }'
