#!/usr/bin/env bash
# Large float32 pointwise ops and reductions: Ember's interpreter
# (runtime/examples/throughput.rs) beside PyTorch eager (tools/bench/throughput_torch.py),
# run alternately ROUNDS times on the same machine; prints ms per op (the lower of the
# rounds) and Ember's speed as a share of PyTorch's (PyTorch ms / Ember ms).
#
#     tools/bench/throughput.sh [REPEATS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPEATS=${1:-11}
ROUNDS=${2:-2}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
cargo build --release -q -p ember-runtime --example throughput
BIN=${CARGO_TARGET_DIR:-target}/release/examples/throughput
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for r in $(seq "$ROUNDS"); do
    "$BIN" "$REPEATS" >"$TMP/ember.$r"
    "$PY" tools/bench/throughput_torch.py "$REPEATS" >"$TMP/torch.$r"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# The lower of the rounds per op; both sides print the ops in the same order.
best() { awk '{ k = $1 " " $2 } !(k in m) { o[++n] = k; m[k] = $3 } $3 < m[k] { m[k] = $3 } END { for (i = 1; i <= n; i++) print o[i], m[o[i]] }' "$@"; }
printf '| elements | op | Ember ms | PyTorch ms | Ember / PyTorch speed |\n|---|---|---|---|---|\n'
paste -d' ' <(best "$TMP"/ember.*) <(best "$TMP"/torch.*) |
    awk '{ printf "| %s | %s | %.3f | %.3f | %.0f%% |\n", $1, $2, $3, $6, 100 * $6 / $3 }'
