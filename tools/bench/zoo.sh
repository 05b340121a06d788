#!/usr/bin/env bash
# The zoo benchmark (BENCHMARKS.md, "Model zoo"): builds compiler/examples/zoo_bench.rs in
# release (no code generation needed) and runs tools/bench/zoo.py with the torch venv, which
# alternates Ember and PyTorch per model and prints the Markdown table. Arguments go to zoo.py.
#
#   tools/bench/zoo.sh [--rounds 2] [--loads 5] [--calls 20] [--only SUBSTRING]
#   EMBER_TORCH_VENV  the venv with torch (default: ~/.cache/torch-venv)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${EMBER_TORCH_VENV:-$HOME/.cache/torch-venv}"
cargo build --release -q --manifest-path "$root/Cargo.toml" -p ember-compiler \
  --no-default-features --example zoo_bench
target="${CARGO_TARGET_DIR:-$root/target}"
exec "$venv/bin/python" "$root/tools/bench/zoo.py" "$target/release/examples/zoo_bench" "$@"
