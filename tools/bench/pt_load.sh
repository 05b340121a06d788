#!/usr/bin/env bash
# Load time of .pt archives: Ember's load_module (release build, no code generation needed)
# beside torch.jit.load of the same files, N loads each (default 20), run alternately twice.
# The files default to resnet18 and mobilenet_v3_small (written by test/setup/pt_models.sh)
# and the transformer encoder layer of the committed corpus.
#
#   tools/bench/pt_load.sh [N] [FILE...]
#   EMBER_TORCH_VENV  the venv with torch (default: ~/.cache/torch-venv)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${EMBER_TORCH_VENV:-$HOME/.cache/torch-venv}"
n="${1:-20}"
shift || true
if [ "$#" -eq 0 ]; then
  large="$(bash "$root/test/setup/pt_models.sh")"
  set -- "$large/resnet18.pt" "$large/mobilenet_v3_small.pt" "$root/test/pt/transformer_encoder_layer.pt"
fi

cargo build --release -q --manifest-path "$root/Cargo.toml" -p ember-compiler \
  --no-default-features --example pt_load_time
target="${CARGO_TARGET_DIR:-$root/target}"
ember="$target/release/examples/pt_load_time"

echo -e "# file\tmedian_ms\tmin_ms ($n loads each)"
for round in 1 2; do
  echo "## round $round: ember load_module"
  "$ember" "$n" "$@"
  echo "## round $round: torch.jit.load"
  "$venv/bin/python" "$root/tools/bench/pt_load_torch.py" "$n" "$@"
done
