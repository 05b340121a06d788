# Shared by models.sh and pool.sh (sourced from the repository root with ROUNDS, THREADS
# and the model names as "$@"): builds ember-run, writes the models once, and defines
# `ember NAME [FLAGS]`, which prints ember-run's median per call and optimization time in ms.
ROUNDS=${1:-$ROUNDS}
THREADS=${2:-2}
shift $(($# < 2 ? $# : 2))
MODELS=${*:-$MODELS}
PY=${PYTHON:-$HOME/.cache/torch-venv/bin/python}
DIR=${CARGO_TARGET_DIR:-target}/bench-models
cargo build --release -q -p ember-run
BIN=${CARGO_TARGET_DIR:-target}/release/ember-run
[ -f "$DIR/resnet18.pt" ] || "$PY" tools/bench/models.py write "$DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ember() {
    local name=$1 mode=${2:-} args=() i n
    for i in "$DIR/$name".in*.npy; do args+=("$i"); done
    run() {
        RAYON_NUM_THREADS=$THREADS "$BIN" "$DIR/$name.pt" "${args[@]}" --bench "$1" $mode 2>&1 >/dev/null |
            awk '/^optimize:/ { o = $2 } /^bench:/ { for (i = 1; i <= NF; i++) if ($i == "median") m = $(i + 1) / 1000 } END { printf "%.4f %.1f\n", m, o }'
    }
    # Calls for about 2 s (10 to 2000), as models.py times each peer: a median over a few
    # tenths of a second moved with the machine far more than the peers' did.
    n=$(run 5 | awk '{ n = ($1 > 0) ? int(2000 / $1) : 2000; print (n < 10 ? 10 : (n > 2000 ? 2000 : n)) }')
    run "$n"
}
