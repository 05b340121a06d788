#!/usr/bin/env bash
# ResNet-18's convolutions: Ember (runtime/examples/bench_linalg.rs) beside PyTorch eager
# (tools/bench/linalg_torch.py) on THREADS cores, run alternately ROUNDS times; prints
# GFLOP/s per round and Ember's share of PyTorch's throughput (best round against best round).
#
#     tools/bench/conv.sh [ROUNDS] [THREADS]
#
# THREADS=1 (RAYON_NUM_THREADS=1 beside torch.set_num_threads(1)) is the comparison that
# other work on a shared machine disturbs least.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
THREADS=${2:-2}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
cargo build --release -q -p ember-runtime --example bench_linalg
BIN=${CARGO_TARGET_DIR:-target}/release/examples/bench_linalg
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for r in $(seq "$ROUNDS"); do
    RAYON_NUM_THREADS=$THREADS "$BIN" conv >"$TMP/ember.$r"
    "$PY" tools/bench/linalg_torch.py conv "$THREADS" >"$TMP/torch.$r"
done
echo "threads: $THREADS, rounds: $ROUNDS, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# Per shape (the text before ':'), the GFLOP/s of every round (the next-to-last field).
rounds() { awk -F': ' '{ split($2, f, " "); g[$1] = g[$1] (g[$1] == "" ? "" : ", ") f[3]; if (!($1 in b) || f[3] > b[$1]) b[$1] = f[3]; if (!($1 in seen)) { seen[$1] = 1; o[++n] = $1 } } END { for (i = 1; i <= n; i++) print o[i] "|" g[o[i]] "|" b[o[i]] }' "$@"; }
printf '| shape | Ember GFLOP/s | PyTorch GFLOP/s | Ember / PyTorch (best) |\n|---|---|---|---|\n'
paste -d'|' <(rounds "$TMP"/ember.*) <(rounds "$TMP"/torch.*) |
    awk -F'|' '{ printf "| %s | %s | %s | %.0f%% |\n", $1, $2, $5, 100 * $3 / $6 }'
