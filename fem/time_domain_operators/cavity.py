"""A PEC cavity's time-domain system by (backend, order): operators, dipole load, probe matrix.

Backends and orders are the FEM registry's (``Backend.time_domain``): ``skfem`` offers order 0
(N0, :mod:`surrogate.fem.time_domain`, the ``maxwell-td`` recipe's fast path), ``ngsolve``
orders 0–6 (:mod:`.ngsolve_operators`, order 5 the recipe's default, 6 its reference in
``benchmarks/td_truth.py``; its order 0 is the same space: the generalised eigenvalues and
probe responses agree). Every system feeds
:class:`~surrogate.fem.time_domain.NewmarkStepper`, ``impulse_response`` and
``convolve_response`` unchanged.

Finer time steps on a fixed output grid: with Δt = dt / r (r ``substeps``), the impulse
response h runs r·steps steps and a signal's observed field at t_n = n·dt is

    y_{r n} = Σ_{k < r n} c_k h_{r n − 1 − k},   c = step loads of s on the fine grid,

:func:`convolve_subsampled`: only the kept rows of the Toeplitz product are formed. Two such
runs, r and 2r substeps, combine to a fourth-order answer (:func:`richardson_in_time`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from surrogate.core.errors import InputError


@dataclass(frozen=True)
class CavitySystem:
    """What a time-domain run needs: ``ops`` (``mass``, ``curlcurl``, ``n_free``), the dipole
    ``load`` b₀ (n_free,) and ``observe`` (3·n_points, n_free): E at the points."""

    backend: str
    order: int
    ops: Any = field(repr=False)
    load: np.ndarray = field(repr=False)
    observe: sp.csr_matrix = field(repr=False)

    @property
    def n_free(self) -> int:
        """Number of free DOFs."""
        return int(self.ops.n_free)


def cavity_system(mesh: Any, order: int, backend: str, centre, width: float,
                  points: np.ndarray) -> CavitySystem:
    """Operators of ``order`` by ``backend`` (the FEM registry's ``time_domain`` entries) on
    ``mesh``, the Gaussian dipole load (``centre``, ``width``, z-directed) and the observation
    matrix at ``points`` (n, 3)."""
    from surrogate.fem.hcurl.registry import BACKENDS, check_backend

    offered = BACKENDS[check_backend(backend)].time_domain
    if isinstance(order, bool) or order not in offered:
        raise InputError(f"the {backend} time-domain backend offers orders "
                         f"{tuple(sorted(offered))}, got {order!r}")
    return offered[int(order)](mesh, centre, width, points)


def n0_cavity_system(mesh: Any, centre, width: float, points: np.ndarray) -> CavitySystem:
    """skfem's N0 system (:mod:`surrogate.fem.time_domain`, the ``maxwell-td`` N0 path)."""
    from surrogate.fem.probes import n0_evaluation_matrix
    from surrogate.fem.time_domain import cavity_operators, dipole_load

    ops = cavity_operators(mesh)
    observe = n0_evaluation_matrix(ops.basis, points)[:, ops.free].tocsr()
    return CavitySystem("skfem", 0, ops, dipole_load(ops, centre, width), observe)


BATCH_CHUNK = 64
"""Signals per FFT product in :func:`convolve_subsampled_batch` (bounds its memory)."""


def fine_step_loads(signal, dt: float, steps: int, substeps: int) -> np.ndarray:
    """Step loads c (steps·substeps,) of ``signal`` (t -> (s, s')) on the grid of step
    Δt = dt / substeps: c_k = −Δt/2 (s'(t_k) + s'(t_{k+1}))."""
    from surrogate.fem.time_domain import step_loads

    substeps = _positive_int("substeps", substeps)
    fine_dt = dt / substeps
    _, ds = signal(fine_dt * np.arange(steps * substeps + 1))
    return step_loads(ds, fine_dt)


def convolve_subsampled(h: np.ndarray, coefficients: np.ndarray, stride: int) -> np.ndarray:
    """y_{stride·n} = Σ_{k < stride·n} c_k h_{stride·n − 1 − k}, n = 0..len(c)/stride:
    the observed field on every ``stride``-th step, (len(c) / stride + 1, m)."""
    stride = _positive_int("stride", stride)
    c, h = np.asarray(coefficients, dtype=np.float64), np.asarray(h, dtype=np.float64)
    if c.ndim != 1 or h.ndim != 2 or h.shape[0] != c.size or c.size % stride:
        raise InputError(f"coefficients (T−1,) and h (T−1, m) with T−1 a multiple of the "
                         f"stride {stride} expected, got {c.shape}, {h.shape}")
    kept = stride * np.arange(c.size // stride + 1)
    index = kept[:, None] - 1 - np.arange(c.size)[None, :]
    toeplitz_rows = np.where(index >= 0, c[np.maximum(index, 0)], 0.0)
    return toeplitz_rows @ h


def convolve_subsampled_batch(h: np.ndarray, coefficients: np.ndarray,
                               stride: int) -> np.ndarray:
    """:func:`convolve_subsampled` for n signals at once, (n, L) step loads against one h
    (L, m) -> (n, L / stride + 1, m): Y[i, j] = Σ_{k < stride·j} c_{i,k} h_{stride·j − 1 − k},
    the linear convolution (c_i ∗ h) at stride·j − 1 by FFT of length 2L (no wrap-around):
    O(n·m·L log L) and h transformed once for all n signals; equal to the per-signal
    Toeplitz product to round-off. Signals go in chunks of :data:`BATCH_CHUNK` (memory
    ~5 KB · L · m per signal in a chunk)."""
    stride = _positive_int("stride", stride)
    c, h = np.asarray(coefficients, dtype=np.float64), np.asarray(h, dtype=np.float64)
    if c.ndim != 2 or h.ndim != 2 or h.shape[0] != c.shape[1] or c.shape[1] % stride:
        raise InputError(f"coefficients (n, T−1) and h (T−1, m) with T−1 a multiple of the "
                         f"stride {stride} expected, got {c.shape}, {h.shape}")
    length, m = h.shape
    size = 2 * length
    kept = stride * np.arange(1, length // stride + 1) - 1  # y_0 = 0; y_j = (c ∗ h)[s·j − 1]
    spectrum = np.fft.rfft(h, size, axis=0)[None]  # (1, size/2 + 1, m)
    out = np.zeros((len(c), kept.size + 1, m))
    for start in range(0, len(c), BATCH_CHUNK):  # chunks of signals, not single ones
        chunk = np.fft.rfft(c[start:start + BATCH_CHUNK], size, axis=1)[:, :, None]
        out[start:start + BATCH_CHUNK, 1:] = np.fft.irfft(chunk * spectrum, size,
                                                          axis=1)[:, kept]
    return out


def richardson_in_time(coarse: np.ndarray, fine: np.ndarray) -> np.ndarray:
    """(4 y_{Δt/2} − y_Δt) / 3 of two observed histories on the same output grid: the
    average-acceleration Newmark scheme is symmetric in time (its global error expands in
    even powers of Δt), so this removes the Δt² term: fourth order in Δt."""
    coarse, fine = np.asarray(coarse, dtype=np.float64), np.asarray(fine, dtype=np.float64)
    if coarse.shape != fine.shape:
        raise InputError(f"histories on one output grid expected, got {coarse.shape} and "
                         f"{fine.shape}")
    return (4.0 * fine - coarse) / 3.0


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


__all__ = ["CavitySystem", "cavity_system", "n0_cavity_system", "fine_step_loads",
           "convolve_subsampled", "convolve_subsampled_batch", "richardson_in_time"]
