#!/usr/bin/env bash
# Start-up: whole `ember-run` processes (release) on a trivial function, as graph text and as
# TorchScript source, beside a Python process that imports torch and runs the same function
# under torch.jit.script (start-up + one call on both sides). Needs hyperfine.
#
#     tools/bench/startup.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-50}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p ember-run
RUN=${CARGO_TARGET_DIR:-target}/release/ember-run
P=tools/bench/programs
for cmd in "$RUN $P/add_one.ir 3" "$RUN $P/add_one.py 3"; do
  [ "$($cmd)" = 4 ] || { echo "$cmd did not print 4" >&2; exit 1; }
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N --warmup 5 --runs "$RUNS" \
  "$RUN $P/add_one.ir 3" \
  "$RUN $P/add_one.py 3" \
  "$RUN --help"
hyperfine -N --warmup 1 --runs 5 "$PY -W ignore tools/bench/scalar_programs.py run add_one 3"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
