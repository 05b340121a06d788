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
ROUNDS=3
MODELS="mlp lstm_pointwise encoder resnet18 mobilenet_v3_small"
. tools/bench/models_setup.sh "$@"

for r in $(seq "$ROUNDS"); do
    for m in $MODELS; do
        echo "$m spin $(EMBER_POOL_SPIN_US=200 ember "$m" | cut -d' ' -f1)" >>"$TMP/t"
        echo "$m sleep $(EMBER_POOL_SPIN_US=0 ember "$m" | cut -d' ' -f1)" >>"$TMP/t"
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
