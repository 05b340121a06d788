#!/usr/bin/env bash
# Installs what Ember needs on Debian 12, and only what is missing: LLVM 22, MLIR 22,
# FileCheck, libclang (for bindgen), and CMake with a C/C++ toolchain (the AOT test project).
# Idempotent: apt runs only when a package is absent.
set -euo pipefail

packages=(
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libclang-22-dev libpolly-22-dev
  clang-22 zlib1g-dev libzstd-dev libxml2-dev libffi-dev libedit-dev libncurses-dev
  python3-venv cmake make g++
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

test -x /usr/lib/llvm-22/bin/FileCheck || { echo "bootstrap: FileCheck missing from llvm-22-tools" >&2; exit 1; }
test -f /usr/lib/llvm-22/lib/libMLIR.so || test -f /usr/lib/llvm-22/lib/libMLIR-C.so || \
  ls /usr/lib/llvm-22/lib/libMLIR*.a >/dev/null 2>&1 || { echo "bootstrap: MLIR libraries missing" >&2; exit 1; }

# The Python package's tests (bindings/python) run with numpy and pytest from PyPI, in a venv
# of their own under target/ (made once; torch is not needed).
venv="$(dirname "$0")/../target/py-venv"
if ! "$venv/bin/python" -c "import numpy, pytest" 2>/dev/null; then
  echo "bootstrap: making $venv (numpy, pytest)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy pytest
fi
