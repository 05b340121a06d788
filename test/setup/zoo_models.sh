#!/usr/bin/env bash
# Writes the model zoo's large-tier archives (full-size torchvision, timm, transformers and
# torchaudio-style models; too large to commit) into target/zoo with the torch venv, each
# checked against the digest test/zoo/MANIFEST.json records, so the committed expected outputs
# are the outputs of exactly these archives. Idempotent. Prints the output directory.
#
#   EMBER_TORCH_VENV  the venv with torch, torchvision, timm, transformers (default: ~/.cache/torch-venv)
#   EMBER_ZOO         where the archives go (default: target/zoo under the repository)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${EMBER_TORCH_VENV:-$HOME/.cache/torch-venv}"
out="${EMBER_ZOO:-$root/target/zoo}"

if [ ! -x "$venv/bin/python" ]; then
  echo "zoo_models.sh: no torch venv at $venv; the large zoo archives are not generated" >&2
  exit 1
fi
mkdir -p "$out"
"$venv/bin/python" "$root/tools/gen/gen_zoo.py" --cache "$out" --tier large --archives-only >&2
echo "$out"
