#!/usr/bin/env bash
# The family study in one command: one surrogate for a whole family of static Maxwell problems,
# held against the FEM on problems it never saw, and the break-even count of its training.
#
#   1. gen-data maxwell-family: `radial` (closed-form u, six parameters μ = (k, a, b, α, p, w))
#      and `inclusion` (spherical inclusion in φ, FEM truth: by default the order-3 mixed
#      solve on the member's own mesh fitted to its ball, curved, maxh 0.25, NGSolve; 0.11-0.16 %
#      from order 4 on maxh 0.18), PROBLEMS draws × POINTS points on the cylinder, split by
#      problem 80/10/10, sensor values stored per problem (the family's own layout: 48 volume
#      sensors for radial, 1000 for inclusion, so that every ball holds some);
#   2. fit, one ResNet (eq. 5.2, learned τ, SiLU σ, quadratic output layer
#      y^[L] = W y + W_q (y ⊙ y): past the cylinder's wall the hidden state continues
#      linearly, the output with the curvature learnt at the wall) per inputs kind:
#        params    (x, μ)                 the problem's parameters;
#        fields    (x, E(s))              a learned encoding E of f, φ at the volume sensors
#                                         and u × n at 16 on the wall (what a user has whose
#                                         problem is data);
#        pointwise (x, f(x), φ(x))        the paper's inputs (they cannot tell the members
#                                         apart: reported as the baseline);
#        params-geometry (x, μ, d)        inclusion: μ and the signed distance d = |x − c| − ρ
#                                         to the member's ball, where u has its kink;
#      and `separable`: the separable model u = Σ b_k(μ) t_k(x) (`fit --arch deeponet`, its
#      own recipe, docs/results/break-even.md);
#   3. evaluate: radial runs on 32 unseen problems on the unit cube (outside the training
#      cylinder at its corners) next to every FEM backend at levels 0–4; inclusion runs on the
#      cylinder, judged by the data's own truth (fitted data: the same fitted solve; level data:
#      the complete-linear solve on EVAL_TRUTH_LEVEL), next to the level solves (levels 1–3)
#      and the fitted solves (orders 1–3 on each member's fitted mesh of maxh 0.5 and 0.35,
#      meshing timed); errors per problem (median, p90) and the break-even count N* =
#      (data generation + training) / (FEM per query − surrogate per query), the FEM the
#      fastest of all at the surrogate's error.
#
# Usage:   examples/family_maxwell.sh [OUT_DIR]            (default: family_maxwell)
# Options (environment): PROBLEMS (default 320), POINTS (default 2000), INCL_PROBLEMS (default
#          320: its fitted truth costs ≈ 10 s of CPU a problem, and the data counts in N*),
#          TRUTH_MESH (inclusion's truth: fitted, the default, or level), TRUTH_LEVEL and
#          TRUTH_ORDER (level truth only: --truth-level, default 3, and --truth-fem-order,
#          docs/cli.md's naming, 1 = complete linear, 0 = N0; default 1), EVAL_TRUTH_LEVEL
#          (level truth only: level of the complete-linear truth that judges the inclusion
#          errors, default TRUTH_LEVEL + 1), FEM_MAX_DOFS (inclusion's evaluation, default 64000:
#          every fitted candidate, up to ≈ 50k DOFs at order 3, runs), EPOCHS_PARAMS (default
#          40), BATCH_PARAMS (default 1024: the same 20,000 Adam steps as 80 epochs of 2048 in
#          ≈ 60 % of the time), EPOCHS_GEOMETRY (params-geometry, default 150: 60 and 20
#          epochs give 1.8 and 2.8 % on validation), EPOCHS_FIELDS (default 80),
#          EPOCHS_POINTWISE (default 10),
#          WIDTH (128), DEPTH (6), BATCH (fields, pointwise; 2048), EVAL_PROBLEMS (32), LEVELS
#          (radial levels, 0-4), INCL_LEVELS (default 1-3), WORKERS (gen-data processes,
#          default 2), JOBS (runs trained at once, default 1), SEED (default 0), FAMILIES
#          (default "radial inclusion"), INPUTS (radial's runs, default "params fields
#          pointwise"), INCL_INPUTS (inclusion's, default "params-geometry params separable":
#          `fields` on its
#          1000 sensors holds the sensor values per row, 320k × 4,051 float64 = 10 GB before
#          copies: more than `fit` may use on a 23 GB machine),
#          OUTPUT_LAYER (quadratic or linear; default quadratic), SURROGATE (the command).
# Runtime (2 cores): a few seconds of radial data; inclusion's fitted truth ≈ 10 s of CPU a
#          problem (320 problems, 2 workers: 27.5 min alone); 1–16 min of training per run
#          (params-geometry: 150 epochs of ≈ 6.4 s on 256 problems, one thread; params: 40
#          epochs; fields: 80 epochs); minutes of radial evaluation at level 4 and ≈ 20–30
#          min of inclusion evaluation (its fitted truth and the fitted candidates, 32 problems).
# Results (docs/results/families.md, 2026-12-03): inclusion params-geometry 1.21 / 1.84 %
#          median / p90 on the fitted truth, N* 350 on the median problem (803 over all)
#          against NGSolve order 3 on fitted meshes; 2026-11-28 (160 problems): params
#          4.09 %, separable 21.7 %.
# Outputs:  OUT_DIR/data/{radial,inclusion}.h5, OUT_DIR/runs/<family>-<inputs>/,
#           OUT_DIR/report/{radial,inclusion}/ (evaluation.json with break_even_queries,
#           index.html, plots).
set -euo pipefail

OUT=${1:-family_maxwell}
PROBLEMS=${PROBLEMS:-320}
POINTS=${POINTS:-2000}
INCL_PROBLEMS=${INCL_PROBLEMS:-320}
TRUTH_MESH=${TRUTH_MESH:-fitted}
TRUTH_LEVEL=${TRUTH_LEVEL:-3}
TRUTH_ORDER=${TRUTH_ORDER:-1}
EVAL_TRUTH_LEVEL=${EVAL_TRUTH_LEVEL:-$((TRUTH_LEVEL + 1))}
FEM_MAX_DOFS=${FEM_MAX_DOFS:-64000}
EPOCHS_PARAMS=${EPOCHS_PARAMS:-40}
EPOCHS_GEOMETRY=${EPOCHS_GEOMETRY:-150}
EPOCHS_FIELDS=${EPOCHS_FIELDS:-80}
EPOCHS_POINTWISE=${EPOCHS_POINTWISE:-10}
WIDTH=${WIDTH:-128}
DEPTH=${DEPTH:-6}
BATCH=${BATCH:-2048}
BATCH_PARAMS=${BATCH_PARAMS:-1024}
EVAL_PROBLEMS=${EVAL_PROBLEMS:-32}
LEVELS=${LEVELS:-0-4}
INCL_LEVELS=${INCL_LEVELS:-1-3}
WORKERS=${WORKERS:-2}
JOBS=${JOBS:-1}
SEED=${SEED:-0}
FAMILIES=${FAMILIES:-radial inclusion}
INPUTS=${INPUTS:-params fields pointwise}
INCL_INPUTS=${INCL_INPUTS:-params-geometry params separable}
OUTPUT_LAYER=${OUTPUT_LAYER:-quadratic}
SURROGATE=${SURROGATE:-surrogate}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
case "$OUTPUT_LAYER" in
    quadratic) output_flags=(--quadratic-output) ;;
    linear) output_flags=() ;;
    *) echo "OUTPUT_LAYER must be quadratic or linear, not '$OUTPUT_LAYER'" >&2; exit 2 ;;
esac

case "$TRUTH_MESH" in
    fitted) truth_flags=(--truth-mesh fitted)
            judge_flags=(--fem-max-dofs "$FEM_MAX_DOFS") ;;  # judged by the data's fitted truth
    level) truth_flags=(--truth-mesh level --truth-level "$TRUTH_LEVEL"
                        --truth-fem-order "$TRUTH_ORDER")
           judge_flags=(--truth-level "$EVAL_TRUTH_LEVEL" --fem-max-dofs "$FEM_MAX_DOFS") ;;
    *) echo "TRUTH_MESH must be fitted or level, not '$TRUTH_MESH'" >&2; exit 2 ;;
esac

mkdir -p "$OUT/data" "$OUT/runs"
for family in $FAMILIES; do
    if [ "$family" = radial ]; then
        "$SURROGATE" gen-data maxwell-family --family radial --problems "$PROBLEMS" \
            --points "$POINTS" --seed "$SEED" -o "$OUT/data/radial.h5" --quiet
    else
        "$SURROGATE" gen-data maxwell-family --family "$family" --problems "$INCL_PROBLEMS" \
            --points "$POINTS" "${truth_flags[@]}" \
            --workers "$WORKERS" --seed "$SEED" -o "$OUT/data/$family.h5" --quiet
    fi
done

epochs_of() {
    case "$1" in params) echo "$EPOCHS_PARAMS" ;; fields) echo "$EPOCHS_FIELDS" ;;
                 params-geometry) echo "$EPOCHS_GEOMETRY" ;; *) echo "$EPOCHS_POINTWISE" ;; esac
}
batch_of() {
    case "$1" in params|params-geometry) echo "$BATCH_PARAMS" ;; *) echo "$BATCH" ;; esac
}

for family in $FAMILIES; do
    runs=()
    kinds=$INPUTS
    [ "$family" = radial ] || kinds=$INCL_INPUTS
    for inputs in $kinds; do
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
        if [ "$inputs" = separable ]; then  # its own recipe (params inputs)
            "$SURROGATE" fit "$OUT/data/$family.h5" --arch deeponet --seed "$SEED" \
                -o "$OUT/runs/$family-$inputs" --overwrite --quiet &
        else
            "$SURROGATE" fit "$OUT/data/$family.h5" --inputs "$inputs" --arch resnet \
                --depth "$DEPTH" --width "$WIDTH" --activation silu --tau learned --tau-init 1 \
                --epochs "$(epochs_of "$inputs")" --batch-size "$(batch_of "$inputs")" \
                --lr 3e-3 --lr-min 1e-5 --schedule cosine --seed "$SEED" \
                -o "$OUT/runs/$family-$inputs" --overwrite "${output_flags[@]}" --quiet &
        fi
        runs+=("$OUT/runs/$family-$inputs")
    done
    while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n; done  # set -e stops at a failed fit
    if [ "$family" = radial ]; then  # closed form: unseen problems on the unseen cube
        "$SURROGATE" evaluate "${runs[@]}" --problems "$EVAL_PROBLEMS" --domain cube \
            --levels "$LEVELS" --out "$OUT/report/$family" --report
    else  # FEM truth: on the training domain, with the fitted solves as contenders
        "$SURROGATE" evaluate "${runs[@]}" --problems "$EVAL_PROBLEMS" \
            --levels "$INCL_LEVELS" "${judge_flags[@]}" \
            --out "$OUT/report/$family" --report
    fi
    echo "open $OUT/report/$family/index.html"
done
