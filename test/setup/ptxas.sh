#!/usr/bin/env bash
# Makes NVIDIA's ptxas available without a CUDA install: the PyPI package
# nvidia-cuda-nvcc-cu12 in a virtual environment outside the repository. Idempotent: when the
# venv already has a working ptxas nothing is downloaded. Prints the path of ptxas on stdout.
#
#   EMBER_PTXAS_VENV  where the venv lives (default: ~/.cache/ember-ptxas-venv)
#   PYTHON            the interpreter that creates it (default: python3)
set -euo pipefail

venv="${EMBER_PTXAS_VENV:-$HOME/.cache/ember-ptxas-venv}"
python="${PYTHON:-python3}"

find_ptxas() {
  # The wheel puts the binary under site-packages/nvidia/cuda_nvcc/bin/.
  { find "$venv" -path '*nvidia/cuda_nvcc/bin/ptxas' -type f 2>/dev/null || true; } | head -n 1
}

ptxas="$(find_ptxas)"
if [ -n "$ptxas" ] && "$ptxas" --version >/dev/null 2>&1; then
  echo "$ptxas"
  exit 0
fi

if [ ! -x "$venv/bin/pip" ]; then
  "$python" -m venv "$venv" >&2
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check 'nvidia-cuda-nvcc-cu12>=12.4,<13' >&2

ptxas="$(find_ptxas)"
if [ -z "$ptxas" ]; then
  echo "ptxas.sh: nvidia-cuda-nvcc-cu12 installed but no ptxas found under $venv" >&2
  exit 1
fi
chmod +x "$ptxas"
"$ptxas" --version >/dev/null
echo "$ptxas"
