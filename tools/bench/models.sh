#!/usr/bin/env bash
# Whole models, batch 1, float32, per call after warm-up (medians): ember-run (frozen, through
# the executor, and with --no-jit) beside PyTorch eager, frozen TorchScript
# (torch.jit.optimize_for_inference(torch.jit.freeze(script))), torch.compile (inductor; its
# first call in the first round, compiling included, in its own column), ONNX Runtime and OpenVINO, on
# THREADS threads, the sides alternated ROUNDS times; the best round of each side counts.
# Also ember-run's optimization time (load to optimized graph).
#
#     tools/bench/models.sh [ROUNDS] [THREADS] [MODEL ...]
#
# The models (tools/bench/models.py: random weights, fixed seeds) are written once into
# target/bench-models with the torch venv ($PYTHON, default ~/.cache/torch-venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=2
MODELS="mlp lstm_pointwise chain encoder resnet18 mobilenet_v3_small"
. tools/bench/models_setup.sh "$@"

for r in $(seq "$ROUNDS"); do
    for m in $MODELS; do
        echo "$m $(ember "$m" "")" >>"$TMP/jit"
        echo "$m $(ember "$m" --no-jit)" >>"$TMP/nojit"
        "$PY" tools/bench/models.py time "$DIR" "$m" "$THREADS" >>"$TMP/peers"
    done
done

best() { awk -v m="$1" -v p="$2" '$1 == m && $2 == p && $3 != "nan" && (b == "" || $3 < b) { b = $3 } END { print (b == "" ? "nan" : b) }' "$TMP/peers"; }
best_ember() { awk -v m="$1" '$1 == m && (b == "" || $2 < b) { b = $2; o = $3 } END { print b, o }' "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || a == 0) print "—"; else printf "%.2fx", b / a }'; }

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(grep -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "threads: $THREADS, rounds: $ROUNDS, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| model | Ember ms | Ember --no-jit ms | optimize ms | eager ms | frozen TorchScript ms | torch.compile ms | torch.compile first call ms | ONNX Runtime ms | OpenVINO ms | Ember vs eager | vs frozen | vs torch.compile | vs ORT | vs OpenVINO |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for m in $MODELS; do
    read -r e o < <(best_ember "$m" "$TMP/jit")
    read -r n _ < <(best_ember "$m" "$TMP/nojit")
    eager=$(best "$m" eager) frozen=$(best "$m" frozen) ort=$(best "$m" ort) ov=$(best "$m" openvino)
    # The first round's first call: later rounds find inductor's on-disk cache warm.
    comp=$(best "$m" compile) first=$(awk -v m="$m" '$1 == m && $2 == "compile_first" { print $3; exit }' "$TMP/peers")
    echo "| $m | $e | $n | $o | $eager | $frozen | $comp | $first | $ort | $ov | $(ratio "$e" "$eager") | $(ratio "$e" "$frozen") | $(ratio "$e" "$comp") | $(ratio "$e" "$ort") | $(ratio "$e" "$ov") |"
done
echo
echo "Ratios: the peer's time over Ember's (above 1: Ember is faster)."
