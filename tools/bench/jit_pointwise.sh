#!/usr/bin/env bash
# Fused pointwise kernels (and a softmax and a layer norm, kernels reducing rows) compiled by Ember's JIT against PyTorch eager, torch.jit.script and torch.compile,
# per call after warm-up, both on two threads, alternating the sides ROUNDS times (medians of
# the per-round medians); then the triad bandwidth of this machine in the same run, and the
# JIT's compile time per kernel (cold, and loaded from the disk cache by a fresh process).
#
#   tools/bench/jit_pointwise.sh [ROUNDS] [CALLS]
#   RAYON_NUM_THREADS=1 tools/bench/jit_pointwise.sh ...   (both sides on one thread)
set -euo pipefail
rounds="${1:-5}"
calls="${2:-50}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
py="${TORCH_PYTHON:-$HOME/.cache/torch-venv/bin/python}"
cd "$repo"
cargo build --release -q -p ember-compiler --example jit_bench
bench="${CARGO_TARGET_DIR:-$repo/target}/release/examples/jit_bench"

echo "threads: ${RAYON_NUM_THREADS:-2}; cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); JIT form: ${EMBER_CPU_FEATURES:-native}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for case in lstm chain4 softmax layernorm; do
  : > /tmp/jit_pw_ember.$$; : > /tmp/jit_pw_torch.$$
  for _ in $(seq "$rounds"); do
    "$bench" run "$case" "$calls" >> /tmp/jit_pw_ember.$$
    "$py" tools/bench/jit_pointwise.py "$case" "$calls" >> /tmp/jit_pw_torch.$$
  done
  jit=$(cut -f1 /tmp/jit_pw_ember.$$ | median); interp=$(cut -f3 /tmp/jit_pw_ember.$$ | median)
  eager=$(cut -f1 /tmp/jit_pw_torch.$$ | median); script=$(cut -f3 /tmp/jit_pw_torch.$$ | median)
  compiled=$(cut -f5 /tmp/jit_pw_torch.$$ | median)
  awk -v c="$case" -v j="$jit" -v i="$interp" -v e="$eager" -v s="$script" -v t="$compiled" 'BEGIN {
    printf "%-7s jit %9.1f us | interpreter %9.1f us | torch eager %9.1f us | torch.jit.script %9.1f us | torch.compile %9.1f us | eager/jit %.2fx  script/jit %.2fx  compile/jit %.2fx\n", c, j, i, e, s, t, e / j, s / j, t / j }'
  if [ "$case" = chain4 ]; then
    triad=$("$bench" triad 20)
    awk -v j="$jit" -v t="$triad" 'BEGIN { bw = 3 * 4 * 16777216 / (j * 1e-6) / 1e9;
      printf "chain4  moves %.2f GB/s = %.0f%% of triad %.2f GB/s\n", bw, 100 * bw / t, t }'
  fi
  rm -f /tmp/jit_pw_ember.$$ /tmp/jit_pw_torch.$$
done
echo "compile (ms per kernel, 8 kernels): cold median/max, disk-cache median/max: $("$bench" compile 8)"
