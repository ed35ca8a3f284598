"""Benchmark: sequences/s of LEM and coRNN, forward + backward, fused rollout vs a plain loop.

Batch 32, T = 1000 steps, hidden 16 and 128, 2 input channels, float32. One timed
iteration = forward over the whole sequence, a loss ``Σ ys ⊙ w`` on every step's hidden
state, and the backward pass into every parameter. The baseline is the straightforward
per-step PyTorch loop kept below (``lem_loop``, ``cornn_loop``: the equations of the cell
written per step with autograd recording every op). Reports the median over ``--repeats``
after ``--warmup`` iterations, ``torch.get_num_threads()``, the load average, and the ratio
fused / loop (target: >= 1.5; LEM at 128 units >= 2.5). Also timed: the same autograd
Function with its time loops run as plain Python (the fallback used where TorchScript is
unavailable), and, given checkouts of the authors' repositories (``--reference`` LEM,
``--cornn-reference`` coRNN; never part of this repository), the authors' own one-step cells
(``src/FitzHughNagumo/network.py`` LEMCell, ``adding/model.py`` coRNNCell, explicit damping)
in their per-step loop, imported into this process (target: >= 2x at 128 units). Prints JSON.

Run: python benchmarks/sequence.py [--repeats 5] [--threads N] [--steps 1000]
     [--reference LEM_CHECKOUT] [--cornn-reference CORNN_CHECKOUT]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch.nn import functional as F

from surrogate.models import cornn, lem
from surrogate.models.cornn import CoRNNCell, cornn_loops_fused
from surrogate.models.lem import LEMCell, lem_loops_fused

TARGET_RATIO = 1.5
TARGET_LEM_128 = 2.5
"""LEM at 128 units >= 2.5x the loop (>= 2x the authors' per-step code)."""
TARGET_AUTHORS = 2.0
"""LEM and coRNN >= 2x the authors' cells (forward + backward, one thread)."""
IN_FEATURES = 2
LABELS = {"fused": "fused", "loop": "loop", "eager": "eager_fallback", "authors": "authors"}


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


def load_module(path: Path, name: str):
    """The Python file ``path`` imported as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def authors_cells(lem_repo: Path | None, cornn_repo: Path | None
                  ) -> dict[str, Callable[[torch.nn.Module], torch.nn.Module]]:
    """arch -> function building the authors' cell of the same size as our cell."""
    cells = {}
    if lem_repo is not None:
        lem_net = load_module(lem_repo / "src/FitzHughNagumo/network.py", "authors_lem")
        cells["lem"] = lambda ours: lem_net.LEMCell(IN_FEATURES, ours.hidden, 1.0)
    if cornn_repo is not None:
        cornn_net = load_module(cornn_repo / "adding/model.py", "authors_cornn")
        cells["cornn"] = lambda ours: cornn_net.coRNNCell(IN_FEATURES, ours.hidden, 0.042,
                                                          ours.gamma, ours.epsilon)
    return cells


def authors_loop(cell: torch.nn.Module, u: torch.Tensor) -> torch.Tensor:
    """The authors' rollout: their cell(x_n, y, z) -> (y, z) per step; ys (N, T, m)."""
    m = cell.nhid if hasattr(cell, "nhid") else cell.i2h.out_features
    y = u.new_zeros(u.shape[0], m)
    z = u.new_zeros(u.shape[0], m)
    ys = []
    for x in u.unbind(1):
        y, z = cell(x, y, z)
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
                        warmup: int, repeats: int, authors: torch.nn.Module | None = None,
                        eager: bool = True) -> dict[str, list[float]]:
    """Times of the fused path, the baseline loop, the eager fallback and the authors' cell,
    taken in turn within every repeat so that a change of machine load hits all alike."""
    times: dict[str, list[float]] = {"fused": [], "loop": [], "eager": [], "authors": []}
    for it in range(warmup + repeats):
        sample = {"fused": one_iteration(fused, cell, u, weights),
                  "loop": one_iteration(loop, cell, u, weights)}
        if authors is not None:
            sample["authors"] = one_iteration(authors_loop, authors, u, weights)
        if eager:
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


def measure(hidden: list[int], steps: int = 1000, batch: int = 32, repeats: int = 5,
            warmup: int = 2, lem_repo: Path | None = None, cornn_repo: Path | None = None,
            eager: bool = True) -> dict:
    """The report (see the module docstring) for every arch and hidden size."""
    cells = {
        "lem": (lambda m: LEMCell(IN_FEATURES, m, dt=1.0), lem_loop),
        "cornn": (lambda m: CoRNNCell(IN_FEATURES, m, dt=0.042, damping="implicit"),
                  cornn_loop),
    }
    theirs = authors_cells(lem_repo, cornn_repo)
    results = []
    for arch, (build, loop) in cells.items():
        for m in hidden:
            torch.manual_seed(0)
            cell = build(m)
            authors = theirs[arch](cell) if arch in theirs else None
            u = torch.randn(batch, steps, IN_FEATURES)
            weights = torch.randn(batch, steps, m)
            times = interleaved_seconds(cell, loop, u, weights, warmup, repeats, authors, eager)
            med = {key: statistics.median(v) for key, v in times.items() if v}
            ratios = [b / a for a, b in zip(times["fused"], times["loop"], strict=True)]
            row = {"arch": arch, "hidden": m, "batch": batch, "steps": steps,
                   **{f"{LABELS[key]}_sequences_per_s": batch / t for key, t in med.items()},
                   **{f"{LABELS[key]}_median_s": t for key, t in med.items()},
                   "speedup": med["loop"] / med["fused"],
                   "speedup_per_repeat_min_max": [min(ratios), max(ratios)]}
            if eager:
                row["eager_fallback_speedup"] = med["loop"] / med["eager"]
            if authors is not None:
                vs = [b / a for a, b in zip(times["fused"], times["authors"], strict=True)]
                row.update({"speedup_vs_authors": med["authors"] / med["fused"],
                            "speedup_vs_authors_per_repeat_min_max": [min(vs), max(vs)],
                            "meets_authors_target": med["authors"] / med["fused"]
                            >= TARGET_AUTHORS})
            results.append(row)
    lem_128 = [r["speedup"] for r in results if r["arch"] == "lem" and r["hidden"] == 128]
    return {
        "benchmark": "sequence forward+backward",
        "threads": torch.get_num_threads(),
        "load_average_1min": os.getloadavg()[0],
        "torch": torch.__version__,
        "torchscript": {"lem": lem_loops_fused(), "cornn": cornn_loops_fused()},
        "repeats": repeats,
        "target_speedup": TARGET_RATIO,
        "meets_target": all(r["speedup"] >= TARGET_RATIO for r in results),
        "lem_128_target_speedup": TARGET_LEM_128,
        "lem_128_meets_target": (lem_128[0] >= TARGET_LEM_128) if lem_128 else None,
        "authors_target_speedup": TARGET_AUTHORS if theirs else None,
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, nargs="+", default=[16, 128])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--reference", type=Path, help="checkout of the authors' LEM repository")
    parser.add_argument("--cornn-reference", type=Path,
                        help="checkout of the authors' coRNN repository")
    args = parser.parse_args()
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    print(json.dumps(measure(args.hidden, args.steps, args.batch, args.repeats, args.warmup,
                             args.reference, args.cornn_reference), indent=2))


if __name__ == "__main__":
    main()
