#!/usr/bin/env bash
# Start-up + run on scalar programs, as whole processes: `ember-run` (release) on the scripted
# graph against the same function under torch.jit.script in a Python process (which imports
# torch first: this measures start-up; tools/bench/interp_per_call.sh measures per call).
#   tools/bench/scalar_programs.sh [TORCH_PYTHON]
# TORCH_PYTHON defaults to ~/.cache/torch-venv/bin/python. Needs hyperfine (apt install
# hyperfine). Both sides print the same number; the script checks that first.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${1:-$HOME/.cache/torch-venv/bin/python}
cargo build --release -q -p ember-run
run=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/ember-run
for case in "collatz_total 3000" "fib_sum 200000" "branchy 200000"; do
  set -- $case
  ours=$("$run" "tools/bench/programs/$1.ir" "$2")
  theirs=$("$py" -W ignore tools/bench/scalar_programs.py run "$1" "$2")
  [ "$ours" = "$theirs" ] || { echo "$1 $2: ember-run printed $ours, PyTorch $theirs" >&2; exit 1; }
  hyperfine -N --warmup 1 --runs 10 \
    "$run tools/bench/programs/$1.ir $2" \
    "$py -W ignore tools/bench/scalar_programs.py run $1 $2"
done
