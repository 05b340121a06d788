#!/usr/bin/env bash
# scaled_dot_product_attention on [1, 12, L, 64] float32 (no mask), per call after warm-up
# (medians): ember-run --no-jit on the one-node graph beside PyTorch's
# F.scaled_dot_product_attention, both on THREADS threads, for each L.
#
#     tools/bench/sdpa.sh [THREADS] [L ...]      (default: 2 threads, L = 128 512 2048)
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-2}
shift $(($# < 1 ? $# : 1))
LENGTHS=${*:-128 512 2048}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
DIR=${CARGO_TARGET_DIR:-target}/bench-sdpa
mkdir -p "$DIR"
cargo build --release -q -p ember-run
BIN=${CARGO_TARGET_DIR:-target}/release/ember-run
cat > "$DIR/sdpa.ir" <<'IR'
graph(%q : Tensor, %k : Tensor, %v : Tensor):
  %none : NoneType = prim::Constant()
  %p : float = prim::Constant[value=0.]()
  %c : bool = prim::Constant[value=0]()
  %o : Tensor = aten::scaled_dot_product_attention(%q, %k, %v, %none, %p, %c, %none, %c)
  return (%o)
IR
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(grep -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '); threads: $THREADS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| L | Ember us | PyTorch us | PyTorch / Ember |"
echo "|---|---|---|---|"
for L in $LENGTHS; do
    "$PY" - "$DIR" "$L" "$THREADS" > "$DIR/torch.$L" <<'PY'
import sys, time
import numpy as np, torch
d, L, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
for n in "qkv":
    np.save(f"{d}/{n}{L}.npy", np.random.RandomState(ord(n)).randn(1, 12, L, 64).astype(np.float32))
q, k, v = [torch.from_numpy(np.load(f"{d}/{n}{L}.npy")) for n in "qkv"]
f = torch.nn.functional.scaled_dot_product_attention
for _ in range(5):
    f(q, k, v)
ts = []
for _ in range(20):
    t = time.perf_counter()
    f(q, k, v)
    ts.append(time.perf_counter() - t)
print(sorted(ts)[len(ts) // 2] * 1e6)
PY
    ember=$(RAYON_NUM_THREADS=$THREADS "$BIN" "$DIR/sdpa.ir" "$DIR/q$L.npy" "$DIR/k$L.npy" "$DIR/v$L.npy" --no-jit --bench 20 2>&1 >/dev/null |
        awk '/^bench:/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1) }')
    torch=$(cat "$DIR/torch.$L")
    awk -v l="$L" -v e="$ember" -v t="$torch" 'BEGIN { printf "| %d | %.1f | %.1f | %.2fx |\n", l, e, t, t / e }'
done
