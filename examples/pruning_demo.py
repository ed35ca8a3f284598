"""Network reduction by learned steps (τ-learning paper §7, Fig. 2).

Trains a 5 × 10 ResNet with variable τ and bias ordering (β > 0, eq. 2.5) on the
Maxwell data (eq. 7.2, cylinder, N = 12,000, split 80/10/10). A small τ penalty (λ₂)
pushes the steps of unneeded layers towards 0; every ``--prune-every`` epochs the hidden
layers with τ < tol are deleted during training (the rest of the network keeps training
and takes over their work). At the end the run is pruned once more at the same tolerance
and the relative L² test errors before/after are compared.

Pruning only after training (``--prune-every 0``) removes the same kind of layers, but a
step τ ≈ 0.03 is not "≈ 0" for a network that is accurate to 0.5 %: deleting it then
multiplies the test error several times. Pruning during training avoids that.

Run:  python examples/pruning_demo.py [--out demo/pruning] [--lambda2 3e-3] [--prune-tol 0.05]
Same as:
    surrogate gen-data maxwell --domain cylinder -n 12000 -o demo/pruning/maxwell.h5
    surrogate fit demo/pruning/maxwell.h5 --arch resnet --depth 5 --width 10 --beta 10 \
        --lambda2 3e-3 --prune-every 250 --prune-tol 0.05 -o demo/pruning/resnet
    surrogate prune demo/pruning/resnet --prune-tol 0.05 -o demo/pruning/resnet-pruned
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from surrogate import fit, prune_run
from surrogate.datasets import MaxwellRecipe, generate_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("demo/pruning"))
    parser.add_argument("--beta", type=float, default=10.0, help="bias ordering β (paper: 10)")
    parser.add_argument("--lambda2", type=float, default=3e-3, help="τ penalty λ₂")
    parser.add_argument("--prune-tol", type=float, default=0.05, help="pruning tolerance on τ")
    parser.add_argument("--epochs", type=int, default=4000)
    parser.add_argument("--points", type=int, default=12000, help="training data points N")
    parser.add_argument("--optimizer", default="adam")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prune-every", type=int, default=250,
                        help="prune during training every K epochs (0: only at the end)")
    args = parser.parse_args()

    data = args.out / "maxwell.h5"
    if not data.exists():
        generate_dataset(MaxwellRecipe(domain="cylinder", n=args.points, seed=0), data)
    run = fit(data, {"arch": "resnet", "depth": 5, "width": 10},
              {"beta": args.beta, "lambda2": args.lambda2, "epochs": args.epochs,
               "optimizer": args.optimizer, "lr": args.lr, "seed": args.seed,
               "prune_every": args.prune_every or None, "prune_tol": args.prune_tol},
              args.out / "resnet", overwrite=True)
    report = prune_run(run.path, args.prune_tol, args.out / "resnet-pruned", overwrite=True)
    before = report["relative_l2_error_before"]["test"]
    after = report["relative_l2_error_after"]["test"]
    summary = {"pruned_in_training": run.metrics["pruning"],
               "taus": [round(t, 4) for t in report["taus_before"]],
               "removed_hidden_layers": report["removed_layers"],
               "paper_hidden_layers_deleted": [k + 1 for k in report["removed_layers"]],
               "depth": [report["depth_before"], report["depth_after"]],
               "test_error_before": before, "test_error_after": after,
               "relative_change": (after - before) / before,
               "within_10_percent": abs(after - before) <= 0.1 * before,
               "train_seconds": run.metrics["wall_time_s"]}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
