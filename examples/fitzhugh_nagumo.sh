#!/usr/bin/env bash
# FitzHugh–Nagumo one-step prediction (Rusch's thesis §5.3, eq. 5.117, Table 5.4) in one
# command: LEM with 16 units and coRNN with 24 units, trained side by side (one thread each).
#
# The paper (Table 5.4, "test L² error", ×10⁻²): LEM (16 units) 0.2, coRNN (24 units) 0.4,
# LSTM (16) 1.2. That error is the root-mean-square error of the raw (unnormalised) series:
# the authors' FitzHughNagumo_task.py (github.com/tk-rusch/LEM) reports
# sqrt(nn.MSELoss()(out, y)) over sequences × steps, on the test set, at the epoch of the best
# validation error (their log ends "final test loss: 0.00238"). `surrogate fit` reports the
# same quantity as metrics.json `rmse.test` (all 1024 test sequences; the authors' loop keeps
# only its last batch of 128), next to our per-sequence relative L² errors.
#
# Data: `surrogate gen-data fitzhugh-nagumo` = the authors' data.py (v(0) ~ U(−1, 1), w(0) = 0,
# RK45 on [0, 400], 1000 steps, input v(t_n), target v(t_{n+1}), 128 / 128 / 1024 sequences),
# integrated to rtol = atol = 1e-10 (theirs: solve_ivp's defaults 1e-3 / 1e-6).
#
# Settings (paper -> here):
#   LEM    Table 5.8 and the authors' script: Adam, lr 9.04e-3 constant, batch 32, Δt = 1,
#          best-validation model (--patience = epochs keeps it). Epochs: theirs 400; here
#          LEM_EPOCHS = 1000, because with the paper's 400 we measured test RMSE 4.2e-3
#          (their 2.4e-3): the error still halves every ~100 epochs at 400 and passes 2e-3
#          at about 600. Every difference from the authors' recipe, and which ones matter,
#          is listed in docs/results/sequences.md (its History); the read-out is now
#          Kaiming-normal as theirs, the numbers below predate that change. Their code and
#          ours side by side at their budget: benchmarks/reference_sequences.py.
#   coRNN  no published settings for this task (the coRNN repository has none; the LEM
#          paper only says "the same fine-tuning protocol"). Tuned here (short runs of
#          60–150 epochs): Δt = 1, γ = 1, ε = 1, explicit damping (eq. 2.45), where the
#          sMNIST defaults (Δt 0.042, γ 2.7, ε 4.7) reach only RMSE 0.35 in 60 epochs,
#          worse than predicting v(t_{n+1}) = v(t_n) (0.079). Optimiser as for LEM.
#
# Measured (this script, defaults, seed 0; shared 2-core machine, the two fits side by side
# with one thread each; CPU = user + system seconds of the whole `fit` command):
#   model   params  test RMSE (paper)     rel. L² mean / median  best epoch  train s  CPU s
#   LEM     1169    1.25e-3 (≤ 2e-3) ✓    8.0e-4 / 7.5e-4        968 / 1000    521     420
#   coRNN   1225    2.00e-3 (≤ 4e-3) ✓    1.29e-3 / 1.25e-3      972 / 1000    354     262
#   total 538 s (9 min) including data generation and the metrics on all 1280 sequences.
# Also measured: LEM with the paper's 400 epochs, test RMSE 4.2e-3 (constant lr) and 8.2e-3
# (cosine to 0 over 400 epochs); coRNN (this setting) passes 4e-3 at about epoch 700.
# With LEM_ARGS=--learn-dt (one learned Δt per unit, from 1) 400 epochs give 2.0–3.3e-3 on
# the authors' data for three seeds, where their code gives 2.1–4.4e-3 (docs/results/sequences.md).
# With CORNN_ARGS="--dt 0.7 --epsilon 0.5 --lr 2e-2 --grad-clip 0.1" (later flags win) coRNN
# reaches 2.5–4.7e-3 in 400 epochs on six seeds of the authors' data (medians 3.76 and 3.01e-3,
# the thesis 4e-3); the settings above diverge on some seeds within 400 epochs without a clip.
#
# Usage:   examples/fitzhugh_nagumo.sh [OUT_DIR]            (default: fitzhugh_nagumo)
# Options (environment): LEM_EPOCHS (1000), CORNN_EPOCHS (1000), LR (9.04e-3), SEED (0),
#          N_TRAIN (128), N_VAL (128), N_TEST (1024) sequences of STEPS (1000) steps,
#          LEM_ARGS, CORNN_ARGS (more `fit` flags per model: e.g. the LEM model option
#          split_bias, the authors' two biases per pre-activation, as its flag),
#          SURROGATE (the command), PYTHON (python3, only for the summary line).
# Output:  OUT_DIR/data/fhn.h5, OUT_DIR/runs/{lem,cornn}/, OUT_DIR/logs/{lem,cornn}.time
#          (CPU seconds of each fit), and one JSON line: per model the test error in the
#          paper's metric (RMSE) with the paper's value and whether ours is at or below it,
#          our test relative L² errors (per-sequence mean / median, pooled), parameters,
#          epochs run, best epoch, training seconds and CPU seconds; total seconds.
set -euo pipefail

OUT=${1:-fitzhugh_nagumo}
LEM_EPOCHS=${LEM_EPOCHS:-1000}
CORNN_EPOCHS=${CORNN_EPOCHS:-1000}
LR=${LR:-9.04e-3}
SEED=${SEED:-0}
N_TRAIN=${N_TRAIN:-128}
N_VAL=${N_VAL:-128}
N_TEST=${N_TEST:-1024}
STEPS=${STEPS:-1000}
SURROGATE=${SURROGATE:-surrogate}
PYTHON=${PYTHON:-python3}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
read -r -a LEM_EXTRA <<< "${LEM_ARGS:-}"
read -r -a CORNN_EXTRA <<< "${CORNN_ARGS:-}"

mkdir -p "$OUT/data" "$OUT/runs" "$OUT/logs"
"$SURROGATE" gen-data fitzhugh-nagumo --n-train "$N_TRAIN" --n-val "$N_VAL" --n-test "$N_TEST" \
    --steps "$STEPS" --seed "$SEED" -o "$OUT/data/fhn.h5" --quiet

common=(--batch-size 32 --lr "$LR" --schedule none --seed "$SEED" --overwrite --quiet)
TIMEFORMAT='%U %S %R'  # user, system CPU seconds, wall seconds of each timed fit
{ time "$SURROGATE" fit "$OUT/data/fhn.h5" --arch lem --hidden 16 --dt 1 \
      --epochs "$LEM_EPOCHS" --patience "$LEM_EPOCHS" "${common[@]}" "${LEM_EXTRA[@]}" \
      -o "$OUT/runs/lem"; } \
    2> "$OUT/logs/lem.time" &
lem_pid=$!
{ time "$SURROGATE" fit "$OUT/data/fhn.h5" --arch cornn --hidden 24 --dt 1 --cornn-gamma 1 \
      --epsilon 1 --damping explicit --epochs "$CORNN_EPOCHS" --patience "$CORNN_EPOCHS" \
      "${common[@]}" "${CORNN_EXTRA[@]}" -o "$OUT/runs/cornn"; } 2> "$OUT/logs/cornn.time" &
cornn_pid=$!
wait "$lem_pid"
wait "$cornn_pid"

"$PYTHON" - "$OUT" "$SEED" "$SECONDS" <<'EOF'
import json, sys
from pathlib import Path

out, seed, seconds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
paper = {"lem": (16, 0.2e-2), "cornn": (24, 0.4e-2)}  # Table 5.4: units, test L² error
models = {}
for name, (units, target) in paper.items():
    m = json.loads((out / "runs" / name / "metrics.json").read_text())
    times = (out / "logs" / f"{name}.time").read_text().split()[-3:]
    user, system, wall = (float(v) for v in times)
    test = m["sequence_relative_l2_error"]["test"]
    models[name] = {
        "units": units, "parameters": m["parameter_count"],
        "test_rmse": float(f"{m['rmse']['test']:.4g}"), "paper_test_rmse": target,
        "meets_paper": m["rmse"]["test"] <= target,
        "val_rmse": float(f"{m['rmse']['val']:.4g}"),
        "test_rel_l2": {k: float(f"{test[k]:.4g}") for k in ("mean", "median", "pooled")},
        "epochs": m["epochs_run"], "best_epoch": m["best_epoch"],
        "train_seconds": round(m["wall_time_s"], 1), "cpu_seconds": round(user + system, 1),
        "threads": m["num_threads"]}
print(json.dumps({"example": "fitzhugh-nagumo", "seed": seed, "metric": "test RMSE of v "
                  "(the paper's 'test L2 error')", "models": models,
                  "holds": all(v["meets_paper"] for v in models.values()),
                  "seconds": seconds}))
EOF
