"""The surrogates' time per query in a family evaluation, through the predictor.

A user of a trained surrogate builds a :class:`~surrogate.predict.predictor.Predictor` once per
point set (normalised points and, for a separable model, its trunk features are cached) and
then asks for problems. Three query patterns are timed per run and test domain:

- ``field``: u at the finest mesh's nodes for one problem μ (wall time of ``predict(μ)``);
- ``probes``: u at the probe points for one problem;
- ``batch``: u at the finest mesh's nodes for B problems in one call, divided by B.

Each is the median of ``repeats`` calls. The one-off set-up of the two predictors (their
caches) is recorded apart; it is paid once per point set, not per query.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def median_seconds(call: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``call``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


@dataclass
class QueryTimer:
    """One run's predictors on one domain: at the finest mesh's nodes and at the probes."""

    label: str
    field_predictor: Any = field(repr=False)
    probe_predictor: Any = field(repr=False)
    setup_seconds: float = 0.0

    @classmethod
    def build(cls, label: str, run: Any, nodes: np.ndarray, probes: np.ndarray,
              device: str, warm_up: np.ndarray) -> QueryTimer:
        """Both predictors of ``run`` (their set-up timed), each called once on ``warm_up``
        (p,) so that lazy initialisation stays outside the timings."""
        from surrogate.predict.predictor import Predictor

        start = time.perf_counter()
        at_nodes = Predictor(run, nodes, device=device)
        at_probes = Predictor(run, probes, device=device)
        seconds = time.perf_counter() - start
        at_nodes.predict(warm_up)
        at_probes.predict(warm_up)
        return cls(label, at_nodes, at_probes, seconds)

    def one_problem(self, mu: np.ndarray, repeats: int) -> dict[str, float]:
        """``{"field", "probes"}``: seconds of one query of the problem μ (p,)."""
        return {"field": median_seconds(lambda: self.field_predictor.predict(mu), repeats),
                "probes": median_seconds(lambda: self.probe_predictor.predict(mu), repeats)}

    def batch(self, params: np.ndarray, repeats: int) -> float:
        """Seconds per problem of one call for the B problems ``params`` (B, p)."""
        return median_seconds(lambda: self.field_predictor.predict(params),
                              repeats) / len(params)


def batch_params(params: np.ndarray, size: int) -> np.ndarray:
    """``size`` problems for the batched query: the unseen draw repeated (its rows in turn)."""
    return np.resize(np.asarray(params, dtype=float), (size, np.shape(params)[1]))


__all__ = ["QueryTimer", "batch_params", "median_seconds"]
