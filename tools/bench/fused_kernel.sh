#!/usr/bin/env bash
# Times a fused elementwise kernel compiled by emberc against the same computation written as a
# plain C loop (cc -O2, libm), on N x N float32 inputs. Prints ns per element for each.
#
#   tools/bench/fused_kernel.sh [N] [REPS]      (emberc from $CARGO_TARGET_DIR/debug or target/debug)
#
# The graph: out = relu(sigmoid(x + 2 * y) * tanh(x) - 0.25) with y broadcast over rows.
# emberc runs for each of --math=inline (the default) and --math=libm, with the portable
# x86-64 CPU and with --cpu native.
set -euo pipefail
n="${1:-1024}"
reps="${2:-50}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
emberc="${EMBERC:-${CARGO_TARGET_DIR:-$repo/target}/debug/emberc}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/bench.ir" <<IR
graph(%x : Float($n, $n, strides=[$n, 1], requires_grad=0, device=cpu),
      %y : Float($n, strides=[1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %c : float = prim::Constant[value=0.25]()
  %z : Float($n, $n, strides=[$n, 1], device=cpu) = aten::add(%x, %y, %two)
  %s : Float($n, $n, strides=[$n, 1], device=cpu) = aten::sigmoid(%z)
  %t : Float($n, $n, strides=[$n, 1], device=cpu) = aten::tanh(%x)
  %m : Float($n, $n, strides=[$n, 1], device=cpu) = aten::mul(%s, %t)
  %d : Float($n, $n, strides=[$n, 1], device=cpu) = aten::sub(%m, %c, %one)
  %r : Float($n, $n, strides=[$n, 1], device=cpu) = aten::relu(%d)
  return (%r)
IR

cat > "$work/main.c" <<C
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench.h"
#define N $n
static void reference(const float *x, const float *y, float *out) {
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++) {
      float z = x[i * N + j] + 2.0f * y[j];
      float s = 1.0f / (1.0f + expf(-z));
      float d = s * tanhf(x[i * N + j]) - 0.25f;
      out[i * N + j] = d < 0.0f ? 0.0f : d;
    }
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void) {
  float *x = malloc(sizeof(float) * N * N), *y = malloc(sizeof(float) * N);
  float *a = malloc(sizeof(float) * N * N), *b = malloc(sizeof(float) * N * N);
  for (long i = 0; i < N * N; i++) x[i] = (float)((i * 7919) % 2001) / 500.0f - 2.0f;
  for (long j = 0; j < N; j++) y[j] = (float)(j % 17) / 8.0f - 1.0f;
  double best_k = 1e9, best_r = 1e9;
  for (int r = 0; r < $reps; r++) {
    double t0 = now(); bench(x, y, a); double t1 = now(); reference(x, y, b); double t2 = now();
    if (t1 - t0 < best_k) best_k = t1 - t0;
    if (t2 - t1 < best_r) best_r = t2 - t1;
  }
  double worst = 0;
  for (long i = 0; i < N * N; i++) { double e = fabs(a[i] - b[i]); if (e > worst) worst = e; }
  printf("emberc kernel: %.3f ns/element   C -O2 loop: %.3f ns/element   max |diff| %.3g\n",
         1e9 * best_k / (N * N), 1e9 * best_r / (N * N), worst);
  return 0;
}
C

for math in inline libm; do
  for cpu in x86-64 native; do
    "$emberc" "$work/bench.ir" -o "$work/bench.o" --header "$work/bench.h" --cpu "$cpu" --math "$math"
    cc -O2 -std=c11 -I"$work" "$work/main.c" "$work/bench.o" -lm -o "$work/bench"
    printf -- '--math=%-6s --cpu=%-6s  ' "$math" "$cpu"; "$work/bench"
  done
done
