#!/usr/bin/env bash
# The Maxwell experiment of Antil, Díaz, Herberg (τ-learning paper, §7, Table 1, Figs. 1–5)
# in one command:
#
#   1. gen-data: 12,000 points uniform in the cylinder x1² + x2² ≤ 1, 0 ≤ x3 ≤ 1 with inputs
#      (x, f(x), φ(x)) and targets u(x) = I1(r) e_θ (eq. 7.2), split 80/10/10;
#   2. fit: ResNet (eq. 5.2) and Fractional-DNN (eq. 5.7), 2 hidden layers × 50 nodes ("2-50"),
#      each with fixed τ (TAU_FIXED, default 0.5 in every layer) and learned τ, without and
#      with bias ordering (eq. 2.5, Moreau–Yosida β = 10): 8 runs;
#   3. evaluate: every run on the unit cube (0, 1)³ it never saw, mesh levels 1–5
#      (h = 1/2 … 1/32), next to the lowest-order Nédélec best approximation u_h ∈ N0 at
#      each h (Fig. 3); the error split inside / outside the cylinder; slice maps at
#      x3 = 0.5 over (−1, 1)² (Figs. 4, 5); learned τ per layer (Table 1); ParaView files;
#      and report/index.html with all of it.
#
# Usage:   examples/paper_maxwell.sh [OUT_DIR]         (default: paper_maxwell)
# Options (environment): EPOCHS (default 10000), LEVELS (default 1-5), DEPTH (default 2;
#          6 gives the paper's "6-50" networks), SEED (default 0), JOBS (runs trained at
#          once, default 1; each uses OMP_NUM_THREADS threads), POINTS (training points,
#          default 12000), SURROGATE (the command).
# Runtime: about 4 min per run of training on one CPU core (2-50, 10,000 full-batch Adam
#          epochs), about 2 min for the evaluation up to level 5 (196,608 tets).
# Outputs:  OUT_DIR/data/maxwell.h5, OUT_DIR/runs/<arch>-<tau>[-bo]/, OUT_DIR/report/
#           (evaluation.json, index.html, plots/*.png, vtk/{cube.pvd, cube_level*.vtu}).
set -euo pipefail

OUT=${1:-paper_maxwell}
EPOCHS=${EPOCHS:-10000}
LEVELS=${LEVELS:-1-5}
DEPTH=${DEPTH:-2}
SEED=${SEED:-0}
POINTS=${POINTS:-12000}
TAU_FIXED=${TAU_FIXED:-0.5}
JOBS=${JOBS:-1}
SURROGATE=${SURROGATE:-surrogate}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

mkdir -p "$OUT"
"$SURROGATE" gen-data maxwell --domain cylinder -n "$POINTS" --seed "$SEED" \
    -o "$OUT/data/maxwell.h5"

runs=()
for arch in resnet frac-dnn; do
    for tau in "$TAU_FIXED" learned; do
        for bo in off on; do
            name="$arch-$([ "$tau" = learned ] && echo learned || echo fixed)"
            name="$name$([ "$bo" = on ] && echo -bo || true)"
            beta=$([ "$bo" = on ] && echo 10 || echo 0)
            while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
            "$SURROGATE" fit "$OUT/data/maxwell.h5" --arch "$arch" --tau "$tau" \
                --width 50 --depth "$DEPTH" --epochs "$EPOCHS" --beta "$beta" \
                --seed "$SEED" -o "$OUT/runs/$name" --overwrite --quiet &
            runs+=("$OUT/runs/$name")
        done
    done
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n; done  # set -e stops at a failed fit

"$SURROGATE" evaluate "${runs[@]}" --domain cube --levels "$LEVELS" --fem-method best \
    --slice z=0.5 --out "$OUT/report" --vtk "$OUT/report/vtk" --report

echo "open $OUT/report/index.html (tables, figures); ParaView: $OUT/report/vtk/cube.pvd"
