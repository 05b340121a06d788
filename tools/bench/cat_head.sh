#!/usr/bin/env bash
# A detection head's cat of parts of different sizes (YOLO-style: box centres, box sizes,
# class scores along dim 1), per call after warm-up (medians): ember-run with the JIT (one
# kernel of three sweeps) and with --no-jit, beside PyTorch eager and torch.jit.script (its
# profiling executor; PyTorch's TensorExpr fuser is off on CPU by default), all on THREADS
# threads, alternated ROUNDS times.
#
#     tools/bench/cat_head.sh [ROUNDS] [THREADS]      (default: 3 rounds, 2 threads)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
THREADS=${2:-2}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
DIR=${CARGO_TARGET_DIR:-target}/bench-cat-head
mkdir -p "$DIR"
cargo build --release -q -p ember-run
BIN=${CARGO_TARGET_DIR:-target}/release/ember-run
cat > "$DIR/head.py" <<'SRC'
def forward(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    return torch.cat([torch.sigmoid(a) * 2.0 - 0.5, torch.exp(b) * 4.0, torch.sigmoid(c)], 1)
SRC
"$PY" - "$DIR" <<'PY'
import sys
import numpy as np
r = np.random.default_rng(0)
for name, channels in (("a", 2), ("b", 2), ("c", 81)):
    np.save(f"{sys.argv[1]}/{name}.npy", r.standard_normal((1, channels, 25600)).astype(np.float32))
PY
# torch.jit.script reads the module's source, so the PyTorch side is a file.
cat > "$DIR/torch_side.py" <<'PY'
import sys, time
import numpy as np, torch
d, threads = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(threads)
class Head(torch.nn.Module):
    def forward(self, a, b, c):
        return torch.cat([torch.sigmoid(a) * 2.0 - 0.5, torch.exp(b) * 4.0, torch.sigmoid(c)], 1)
a, b, c = (torch.from_numpy(np.load(f"{d}/{n}.npy")) for n in "abc")
def median(f):
    with torch.no_grad():
        for _ in range(10):
            f(a, b, c)
        ts = []
        for _ in range(300):
            t = time.perf_counter()
            f(a, b, c)
            ts.append(time.perf_counter() - t)
    return np.median(ts) * 1e6
print(f"{median(Head()):.1f} | {median(torch.jit.script(Head().eval())):.1f}")
PY
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(grep -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '); threads: $THREADS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| round | Ember JIT us | Ember --no-jit us | eager us | torch.jit.script us |"
echo "|---|---|---|---|---|"
ember() {
    RAYON_NUM_THREADS=$THREADS "$BIN" "$DIR/head.py" "$DIR/a.npy" \
        "$DIR/b.npy" "$DIR/c.npy" --bench 300 "$@" 2>&1 >/dev/null |
        sed -n 's/^bench:.*median \([0-9.]*\) us.*/\1/p'
}
for round in $(seq "$ROUNDS"); do
    jit=$(ember)
    nojit=$(ember --no-jit)
    torch=$("$PY" "$DIR/torch_side.py" "$DIR" "$THREADS" 2>/dev/null)
    echo "| $round | $jit | $nojit | $torch |"
done
