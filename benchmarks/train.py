"""Benchmark: training steps/s (forward + backward + Adam step) of resnet and frac-dnn.

Width 50, depth 2, 6 and 32, full batch of 12,000 random samples (7 inputs -> 3 outputs,
the shape of the Maxwell data), learned τ, smooth-relu. Reports the median step time over
``--repeats`` steps after ``--warmup`` steps, ``torch.get_num_threads()``, and the time
ratio frac-dnn / resnet at depth 32 (target: <= 3). Prints JSON.

``--trainer`` times one full-batch epoch of the real training loop instead
(``surrogate.training.epoch.train_epoch``: objective with penalties, per-layer gradient norms,
Adam step), i.e. what ``surrogate fit`` pays per epoch.

Run: python benchmarks/train.py [--repeats 7] [--threads N] [--trainer]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from surrogate.models.registry import build_model, model_config

ARCHS = ("resnet", "frac-dnn")
DEPTHS = (2, 6, 32)
TARGET_RATIO = 3.0


def trainer_step_seconds(arch: str, depth: int, x: torch.Tensor, y: torch.Tensor, warmup: int,
                         repeats: int) -> list[float]:
    """Wall times of single full-batch epochs of ``surrogate.training.epoch.train_epoch``."""
    from surrogate.training.config import TrainConfig
    from surrogate.training.epoch import train_epoch
    from surrogate.training.state import new_state

    torch.manual_seed(0)
    model = build_model(model_config(arch=arch, in_features=x.shape[1],
                                    out_features=y.shape[1], width=50, depth=depth))
    config = TrainConfig(lr=1e-3, schedule="none")
    state = new_state(model, config, 0)
    times = []
    for it in range(warmup + repeats):
        start = time.perf_counter()
        train_epoch(state, config, x, y)
        if it >= warmup:
            times.append(time.perf_counter() - start)
    return times


def step_seconds(arch: str, depth: int, x: torch.Tensor, y: torch.Tensor, warmup: int,
                 repeats: int) -> list[float]:
    """Wall times of single training steps (zero_grad, forward, MSE, backward, Adam step)."""
    torch.manual_seed(0)
    model = build_model(model_config(arch=arch, in_features=x.shape[1],
                                    out_features=y.shape[1], width=50, depth=depth))
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    times = []
    for it in range(warmup + repeats):
        start = time.perf_counter()
        optimiser.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimiser.step()
        if it >= warmup:
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batch", type=int, default=12_000)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--trainer", action="store_true",
                        help="time epochs of surrogate.training.epoch.train_epoch")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(args.batch, 7, generator=gen)
    y = torch.randn(args.batch, 3, generator=gen)
    rows = []
    for depth in DEPTHS:
        for arch in ARCHS:
            timer = trainer_step_seconds if args.trainer else step_seconds
            times = timer(arch, depth, x, y, args.warmup, args.repeats)
            median = statistics.median(times)
            rows.append({"arch": arch, "depth": depth, "width": 50, "batch": args.batch,
                         "median_step_s": median, "steps_per_s": 1.0 / median,
                         "min_step_s": min(times), "repeats": args.repeats})
    by_key = {(r["arch"], r["depth"]): r["median_step_s"] for r in rows}
    ratio = by_key["frac-dnn", 32] / by_key["resnet", 32]
    print(json.dumps({
        "benchmark": "training.epoch" if args.trainer else "models.train-step",
        "torch": torch.__version__,
        "num_threads": torch.get_num_threads(),
        "results": rows,
        "ratio_fracdnn_over_resnet_depth32": ratio,
        "target_ratio": TARGET_RATIO,
        "ok": ratio <= TARGET_RATIO,
    }, indent=2))


if __name__ == "__main__":
    main()
