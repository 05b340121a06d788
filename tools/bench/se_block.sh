#!/usr/bin/env bash
# The pointwise half of a squeeze-and-excitation block at mobilenet_v3_small's shapes: the
# global average pool (adaptive_avg_pool2d to 1x1) and the channel scale (a [1,C,1,1] by
# [1,C,H,W] multiply), each ITERS times in a prim::Loop under ember-run (median of --bench
# calls) beside the same loop in PyTorch eager, alternated ROUNDS times; microseconds per
# op (the lower of the rounds), both on THREADS threads.
#
#     tools/bench/se_block.sh [ROUNDS] [ITERS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
ITERS=${2:-500}
THREADS=${3:-2}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p ember-run
RUN=${CARGO_TARGET_DIR:-target}/release/ember-run
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SHAPES="16x56x56 240x14x14 576x7x7"
cat >"$TMP/pool.ir" <<'IR'
graph(%x : Tensor, %s : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %size : int[] = prim::ListConstruct(%one, %one)
  %y : Tensor = prim::Loop(%n, %true, %s)
    block0(%i : int, %acc : Tensor):
      %z : Tensor = aten::adaptive_avg_pool2d(%x, %size)
      -> (%true, %z)
  return (%y)
IR
sed 's/aten::adaptive_avg_pool2d(%x, %size)/aten::mul(%s, %x)/' "$TMP/pool.ir" >"$TMP/scale.ir"
"$PY" - "$TMP" $SHAPES <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
for shape in sys.argv[2:]:
    c, h, w = map(int, shape.split("x"))
    np.save(f"{sys.argv[1]}/x{shape}.npy", rng.random((1, c, h, w), dtype=np.float32))
    np.save(f"{sys.argv[1]}/s{shape}.npy", rng.random((1, c, 1, 1), dtype=np.float32))
PY
cat >"$TMP/se_torch.py" <<'PY'
import sys, time, numpy as np, torch
torch.set_num_threads(int(sys.argv[3]))
op, iters = sys.argv[1], int(sys.argv[2])
x = torch.from_numpy(np.load(sys.argv[4]))
s = torch.from_numpy(np.load(sys.argv[5]))
f = (lambda: torch.nn.functional.adaptive_avg_pool2d(x, 1)) if op == "pool" else (lambda: s * x)
times = []
for _ in range(23):
    t = time.perf_counter()
    for _ in range(iters):
        f()
    times.append(time.perf_counter() - t)
print(sorted(times[3:])[10] / iters * 1e6)
PY
for r in $(seq "$ROUNDS"); do
    for op in pool scale; do
        for shape in $SHAPES; do
            args=("$TMP/x$shape.npy" "$TMP/s$shape.npy")
            us=$(RAYON_NUM_THREADS=$THREADS "$RUN" "$TMP/$op.ir" "${args[@]}" "$ITERS" --bench 20 2>&1 >/dev/null |
                sed -n 's/.*median \([0-9.]*\) us.*/\1/p')
            echo "$op $shape ember $(awk -v u="$us" -v n="$ITERS" 'BEGIN { print u / n }')" >>"$TMP/t"
            echo "$op $shape torch $("$PY" "$TMP/se_torch.py" "$op" "$ITERS" "$THREADS" "${args[@]}")" >>"$TMP/t"
        done
    done
done
best() { awk -v o="$1" -v s="$2" -v p="$3" '$1 == o && $2 == s && $3 == p && (b == "" || $4 < b) { b = $4 } END { print b }' "$TMP/t"; }
echo "threads: $THREADS, rounds: $ROUNDS, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| op | shape | Ember us | PyTorch eager us | eager / Ember |"
echo "|---|---|---|---|---|"
for op in pool scale; do
    for shape in $SHAPES; do
        e=$(best $op "$shape" ember) t=$(best $op "$shape" torch)
        echo "| $op | $shape | $(printf %.2f "$e") | $(printf %.2f "$t") | $(awk -v a="$e" -v b="$t" 'BEGIN { printf "%.2fx", b / a }') |"
    done
done
