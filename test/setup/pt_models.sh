#!/usr/bin/env bash
# Writes the archives too large to commit (torchvision resnet18 and mobilenet_v3_small with
# random weights and fixed seeds, their sample inputs and outputs, and a SUMMARY.json) with
# the torch venv, when it is present. Prints the output directory on stdout.
#
#   EMBER_TORCH_VENV  the venv with torch and torchvision (default: ~/.cache/torch-venv)
#   EMBER_PT_LARGE    where the archives go (default: target/pt-large under the repository)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${EMBER_TORCH_VENV:-$HOME/.cache/torch-venv}"
out="${EMBER_PT_LARGE:-$root/target/pt-large}"

if [ ! -x "$venv/bin/python" ]; then
  echo "pt_models.sh: no torch venv at $venv; the large .pt archives are not generated" >&2
  exit 1
fi
if [ -f "$out/resnet18.pt" ] && [ -f "$out/mobilenet_v3_small.pt" ] && [ -f "$out/SUMMARY.json" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$out"
"$venv/bin/python" "$root/tools/gen/gen_pt_corpus.py" --large "$out" >&2
echo "$out"
