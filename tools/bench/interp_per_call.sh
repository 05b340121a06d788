#!/usr/bin/env bash
# The interpreter per call after warm-up: `ember-run --bench CALLS` (release) against the same
# program under torch.jit.script called CALLS times in a loop in one Python process after
# warm-up (tools/bench/interp_per_call.py). The two sides alternate ROUNDS times per program;
# each side's number is the lowest of its rounds' median times per call. Both print the same
# result, which is checked first.
#
#     tools/bench/interp_per_call.sh [CALLS] [ROUNDS] [PROGRAM ...]
#
# PYTHON (default ~/.cache/torch-venv/bin/python) runs PyTorch. EMBER_RUN_FLAGS adds flags to
# ember-run's (`--compile=whole`: the programs compiled whole, as emberc compiles them).
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS=${1:-20}
ROUNDS=${2:-3}
shift $(( $# < 2 ? $# : 2 ))
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p ember-run
RUN=${CARGO_TARGET_DIR:-target}/release/ember-run
P=tools/bench/programs
# name | iterations per call | what | ember-run arguments
PROGRAMS=(
  "collatz_total|215063|while in for, branches (inner iterations)|$P/collatz_total.ir 3000"
  "fib_sum|200000|for, modular arithmetic, swapped carried values|$P/fib_sum.ir 200000"
  "branchy|200000|for, if/elif/else, xor|$P/branchy.ir 200000"
  "mod_loop|200000|for, if on i % 3, int multiply/add/modulo|$P/mod_loop.ir 200000"
  "calls|100000|while, prim::CallFunction of a float helper, list append|$P/interp_loops.py --entry calls 100000"
  "module_methods|100000|for, prim::CallMethod reading two attributes|$P/stepper.pt 100000"
  "tensor_loop|10000|for, three ops on a 1-element tensor|$P/interp_loops.py --entry tensor_loop $P/x1.npy 10000"
)
selected=("$@")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| program | what | iterations | Ember ns/iter | PyTorch ns/iter | speed-up |\n|---|---|---|---|---|---|\n'
for entry in "${PROGRAMS[@]}"; do
  IFS='|' read -r name iters what args <<<"$entry"
  if [ ${#selected[@]} -gt 0 ] && [[ ! " ${selected[*]} " == *" $name "* ]]; then continue; fi
  best_ember=""
  best_torch=""
  for _ in $(seq "$ROUNDS"); do
    # shellcheck disable=SC2086
    out=$("$RUN" $args ${EMBER_RUN_FLAGS:-} --bench "$CALLS" 2>"/tmp/interp_per_call.$$")
    ember_us=$(sed -n 's/.*median \([0-9.]*\) us.*/\1/p' "/tmp/interp_per_call.$$")
    read -r torch_us _ torch_out < <("$PY" tools/bench/interp_per_call.py run "$name" "$CALLS")
    if [ "$out" != "$torch_out" ]; then
      echo "$name: ember-run printed $out, PyTorch $torch_out" >&2
      exit 1
    fi
    best_ember=$(echo "$ember_us $best_ember" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
    best_torch=$(echo "$torch_us $best_torch" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
  done
  echo "$best_ember $best_torch $iters" | awk -v n="$name" -v w="$what" \
    '{ printf "| %s | %s | %d | %.1f | %.1f | %.1fx |\n", n, w, $3, $1 * 1000 / $3, $2 * 1000 / $3, $2 / $1 }'
done
rm -f "/tmp/interp_per_call.$$"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
