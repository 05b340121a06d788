#!/usr/bin/env bash
# Per-op cost on 1-element tensors: Ember's interpreter (runtime/examples/op_overhead.rs)
# beside PyTorch eager (tools/bench/op_overhead_torch.py), run alternately ROUNDS times on
# the same machine; prints ns per call (the lower of the rounds) and PyTorch / Ember.
#
#     tools/bench/op_overhead.sh [N] [REPEATS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000}
REPEATS=${2:-15}
ROUNDS=${3:-2}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
cargo build --release -q -p ember-runtime --example op_overhead
BIN=${CARGO_TARGET_DIR:-target}/release/examples/op_overhead
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for r in $(seq "$ROUNDS"); do
    "$BIN" "$N" "$REPEATS" >"$TMP/ember.$r"
    "$PY" tools/bench/op_overhead_torch.py "$N" "$REPEATS" >"$TMP/torch.$r"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# The lower of the rounds per op; both sides print the ops in the same order.
best() { awk '!($1 in m) { k[++n] = $1; m[$1] = $2 } $2 < m[$1] { m[$1] = $2 } END { for (i = 1; i <= n; i++) print k[i], m[k[i]] }' "$@"; }
printf '| op | Ember ns | PyTorch ns | PyTorch / Ember |\n|---|---|---|---|\n'
paste -d' ' <(best "$TMP"/ember.*) <(best "$TMP"/torch.*) |
    awk '{ printf "| %s | %.0f | %.0f | %.1fx |\n", $1, $2, $4, $4 / $2 }'
