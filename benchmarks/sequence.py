"""Benchmark: sequences/s of LEM and coRNN, forward + backward, fused rollout vs a plain loop.

Batch 32, T = 1000 steps, hidden 16 and 128, 2 input channels, float32. One timed
iteration = forward over the whole sequence, a loss ``Σ ys ⊙ w`` on every step's hidden
state, and the backward pass into every parameter. The baseline is the straightforward
per-step PyTorch loop kept below (``lem_loop``, ``cornn_loop``: the equations of the cell
written per step with autograd recording every op). Reports the median over ``--repeats``
after ``--warmup`` iterations, ``torch.get_num_threads()``, the load average, and the ratio
fused / loop (target: >= 1.5; LEM at 128 units >= 2.5). Also timed: the same autograd
Function with its time loops run as plain Python (the fallback used where TorchScript is
unavailable). Prints JSON.

Run: python benchmarks/sequence.py [--repeats 5] [--threads N] [--steps 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time

import torch
from torch.nn import functional as F

from surrogate.models import cornn, lem
from surrogate.models.cornn import CoRNNCell, cornn_loops_fused
from surrogate.models.lem import LEMCell, lem_loops_fused

TARGET_RATIO = 1.5
TARGET_LEM_128 = 2.5
"""LEM at 128 units >= 2.5x the loop (>= 2x the authors' per-step code)."""
IN_FEATURES = 2


def lem_loop(cell: LEMCell, u: torch.Tensor) -> torch.Tensor:
    """Baseline: eq. 5.3 one step at a time with plain autograd; u (N, T, d) -> ys (N, T, m)."""
    m = cell.hidden
    y = u.new_zeros(u.shape[0], m)
    z = u.new_zeros(u.shape[0], m)
    dt = cell.dt
    v1, v2, vz, vy = cell.input_weight.split(m)
    b1, b2, bz, by = cell.input_bias.split(m)
    w1, w2, wz = cell.gate_weight.split(m)
    ys = []
    for n in range(u.shape[1]):
        un = u[:, n]
        dt_n = dt * torch.sigmoid(F.linear(y, w1) + F.linear(un, v1, b1))
        dt_bar = dt * torch.sigmoid(F.linear(y, w2) + F.linear(un, v2, b2))
        z = (1 - dt_n) * z + dt_n * torch.tanh(F.linear(y, wz) + F.linear(un, vz, bz))
        y = (1 - dt_bar) * y + dt_bar * torch.tanh(F.linear(z, cell.z_weight)
                                                   + F.linear(un, vy, by))
        ys.append(y)
    return torch.stack(ys, dim=1)


def cornn_loop(cell: CoRNNCell, u: torch.Tensor) -> torch.Tensor:
    """Baseline: eq. 2.3 (implicit damping) one step at a time with plain autograd."""
    y = u.new_zeros(u.shape[0], cell.hidden)
    z = u.new_zeros(u.shape[0], cell.hidden)
    dt, gamma, epsilon = cell.dt, cell.gamma, cell.epsilon
    ys = []
    for n in range(u.shape[1]):
        force = torch.tanh(F.linear(y, cell.y_weight) + F.linear(z, cell.z_weight)
                           + F.linear(u[:, n], cell.input_weight, cell.input_bias))
        z = (z + dt * force - dt * gamma * y) / (1 + dt * epsilon)
        y = y + dt * z
        ys.append(y)
    return torch.stack(ys, dim=1)


def one_iteration(run, cell: torch.nn.Module, u: torch.Tensor, weights: torch.Tensor) -> float:
    """Wall time of forward + loss + backward (gradients into every parameter)."""
    cell.zero_grad(set_to_none=True)
    start = time.perf_counter()
    ys = run(cell, u)
    (ys * weights).sum().backward()
    return time.perf_counter() - start


def interleaved_seconds(cell: torch.nn.Module, loop, u: torch.Tensor, weights: torch.Tensor,
                        warmup: int, repeats: int) -> dict[str, list[float]]:
    """Times of the fused path, the baseline loop and the eager fallback, taken in turn
    within every repeat so that a change of machine load hits all three alike."""
    times: dict[str, list[float]] = {"fused": [], "loop": [], "eager": []}
    for it in range(warmup + repeats):
        sample = {"fused": one_iteration(fused, cell, u, weights),
                  "loop": one_iteration(loop, cell, u, weights)}
        with eager_time_loops():
            sample["eager"] = one_iteration(fused, cell, u, weights)
        if it >= warmup:
            for key, value in sample.items():
                times[key].append(value)
    return times


def fused(cell: torch.nn.Module, u: torch.Tensor) -> torch.Tensor:
    """The library path: the cell's fused forward."""
    return cell(u)[0]


@contextlib.contextmanager
def eager_time_loops():
    """Run the library's time loops as plain Python (the fallback without TorchScript)."""
    saved = [(module, module._FORWARD_LOOP, module._BACKWARD_LOOP) for module in (lem, cornn)]
    lem._FORWARD_LOOP, lem._BACKWARD_LOOP = lem.lem_forward_loop, lem.lem_backward_loop
    cornn._FORWARD_LOOP, cornn._BACKWARD_LOOP = (cornn.cornn_forward_loop,
                                                 cornn.cornn_backward_loop)
    try:
        yield
    finally:
        for module, forward, backward in saved:
            module._FORWARD_LOOP, module._BACKWARD_LOOP = forward, backward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, nargs="+", default=[16, 128])
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    cells = {
        "lem": (lambda m: LEMCell(IN_FEATURES, m, dt=1.0), lem_loop),
        "cornn": (lambda m: CoRNNCell(IN_FEATURES, m, dt=0.042, damping="implicit"),
                  cornn_loop),
    }
    results = []
    for arch, (build, loop) in cells.items():
        for hidden in args.hidden:
            torch.manual_seed(0)
            cell = build(hidden)
            u = torch.randn(args.batch, args.steps, IN_FEATURES)
            weights = torch.randn(args.batch, args.steps, hidden)
            times = interleaved_seconds(cell, loop, u, weights, args.warmup, args.repeats)
            t_fused, t_loop, t_eager = (statistics.median(times[key])
                                        for key in ("fused", "loop", "eager"))
            ratios = [b / a for a, b in zip(times["fused"], times["loop"], strict=True)]
            results.append({
                "arch": arch, "hidden": hidden, "batch": args.batch, "steps": args.steps,
                "fused_sequences_per_s": args.batch / t_fused,
                "loop_sequences_per_s": args.batch / t_loop,
                "eager_fallback_sequences_per_s": args.batch / t_eager,
                "fused_median_s": t_fused, "loop_median_s": t_loop,
                "eager_fallback_median_s": t_eager,
                "speedup": t_loop / t_fused, "eager_fallback_speedup": t_loop / t_eager,
                "speedup_per_repeat_min_max": [min(ratios), max(ratios)],
            })
    lem_128 = [r["speedup"] for r in results if r["arch"] == "lem" and r["hidden"] == 128]
    report = {
        "benchmark": "sequence forward+backward",
        "threads": torch.get_num_threads(),
        "load_average_1min": os.getloadavg()[0],
        "torch": torch.__version__,
        "torchscript": {"lem": lem_loops_fused(), "cornn": cornn_loops_fused()},
        "repeats": args.repeats,
        "target_speedup": TARGET_RATIO,
        "meets_target": all(r["speedup"] >= TARGET_RATIO for r in results),
        "lem_128_target_speedup": TARGET_LEM_128,
        "lem_128_meets_target": (lem_128[0] >= TARGET_LEM_128) if lem_128 else None,
        "results": results,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
