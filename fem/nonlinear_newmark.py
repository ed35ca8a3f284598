"""Average-acceleration Newmark with Newton's method for the nonlinear cavity (eqs. 1–4 of
:mod:`surrogate.fem.time_domain_operators.nonlinear_conduction`).

For ε M ë + d/dt N(e) + μ⁻¹ K e = g(t) (eq. 2 there) the trapezoidal rule on the first-order
system in (e, v), with d/dt N integrated exactly over the step, reads

    e_{n+1} = e_n + Δt/2 (v_n + v_{n+1}),                                               (5)
    ε M (v_{n+1} − v_n) + N(e_{n+1}) − N(e_n) + Δt/2 μ⁻¹ K (e_n + e_{n+1}) = ℓ_n,      (6)

with ℓ_n = Δt/2 (g_n + g_{n+1}) = c_n b₀ the load of the linear
:class:`~surrogate.fem.time_domain.NewmarkStepper` (``step_loads``: c_n = −Δt/2 (s'_n + s'_{n+1})).
For N(e) = σ₀ M e, (5)–(6) is that stepper's step: A v_{n+1} = B v_n − Δt μ⁻¹K e_n + ℓ_n with
A, B = ε M ± Δt/2 σ₀ M ± Δt²/4 μ⁻¹ K. Eliminating v_{n+1} = 2 δ/Δt − v_n, the step solves for the
increment δ = e_{n+1} − e_n (no cancellation against e_n in the residual)

    R(δ) = 2ε/Δt M δ − 2ε M v_n + N(e_n + δ) − N(e_n) + Δt/2 μ⁻¹ K (2 e_n + δ) − ℓ_n = 0,  (7)
    J(δ) = 2ε/Δt M + N'(e_n + δ) + Δt/2 μ⁻¹ K   (symmetric positive definite),         (8)

by Newton's method from the predictor δ₀ = Δt v_n: J(δ_k) (δ_{k+1} − δ_k) = −R(δ_k), one sparse
LU (SuperLU, symmetric ordering) per iteration, until ‖R‖ ≤ rtol · s_n with the step's scale
s_n = ‖2ε M v_n‖ + ‖N(e_n)‖ + ‖Δt μ⁻¹ K e_n‖ + ‖ℓ_n‖; otherwise a SolverError. R is the
gradient of a strictly convex function of δ (N is monotone, eq. 3's note), so the step has one
solution. Multiplying (6) by (v_n + v_{n+1})/2 = δ/Δt gives the discrete energy balance

    E_{n+1} − E_n = ℓ_n · (v_n + v_{n+1})/2 − (N(e_{n+1}) − N(e_n)) · (e_{n+1} − e_n)/Δt,   (9)
    E_n = ½ ε v_nᵀ M v_n + ½ μ⁻¹ e_nᵀ K e_n,

exact up to the Newton tolerance; the dissipation term is ≥ σ₀ ‖δ‖²_M / Δt ≥ 0 by monotonicity,
so without load the energy decreases. The scheme is second order in Δt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from surrogate.core.errors import InputError, SolverError
from surrogate.fem.time_domain import Material

NEWTON_RTOL = 1e-12  # default: ‖R‖ ≤ rtol · s_n (eq. 7)
NEWTON_MAX_ITERATIONS = 25


@dataclass(frozen=True)
class NewtonStep:
    """One step's outcome: the new state, N(e_{n+1}), the Newton iterations (linear solves)
    and the residuals ‖R(δ_k)‖ / s_n, k = 0..iterations (eq. 7)."""

    e: np.ndarray = field(repr=False)
    v: np.ndarray = field(repr=False)
    current: np.ndarray = field(repr=False)
    iterations: int
    residuals: np.ndarray


class NonlinearNewmarkStepper:
    """Eqs. (5)–(8) for cavity operators ``ops`` (``mass``, ``curlcurl``, ``n_free``) and a
    ``conduction`` operator (``apply`` N, ``jacobian`` N'; see ``conduction_operator``).

    ``material`` gives ε and μ; its own σ must be 0 (the conduction is the operator's).
    """

    def __init__(self, ops: Any, conduction: Any, material: Material, dt: float, *,
                 rtol: float = NEWTON_RTOL, max_iterations: int = NEWTON_MAX_ITERATIONS):
        for name, value in (("time step dt", dt), ("Newton rtol", rtol)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                    or not (np.isfinite(value) and value > 0):
                raise InputError(f"{name}={value!r}: expected a finite number > 0")
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) \
                or max_iterations < 1:
            raise InputError(f"Newton max_iterations={max_iterations!r}: expected an integer >= 1")
        if not isinstance(material, Material) or material.sigma != 0.0:
            raise InputError("the nonlinear stepper takes eps and mu from a Material with "
                             "sigma=0 (the conductivity is the conduction operator's)")
        self.ops, self.conduction, self.material = ops, conduction, material
        self.dt, self.rtol, self.max_iterations = float(dt), float(rtol), int(max_iterations)
        self.inertia = sp.csr_matrix((2.0 * material.eps / self.dt) * ops.mass)
        self.stiffness = sp.csr_matrix((0.5 * self.dt / material.mu) * ops.curlcurl)
        self.linear_part = sp.csr_matrix(self.inertia + self.stiffness)

    def step(self, e: np.ndarray, v: np.ndarray, load: np.ndarray | float = 0.0,
             current: np.ndarray | None = None) -> NewtonStep:
        """(e_{n+1}, v_{n+1}) from (e_n, v_n) and ℓ_n = ``load`` (eqs. 5–8); ``current`` is
        N(e_n) when the caller has it (the previous step's)."""
        current = self.conduction.apply(e) if current is None else current
        momentum, restoring = self.dt * (self.inertia @ v), 2.0 * (self.stiffness @ e)
        fixed = momentum - restoring + load  # 2ε M v_n − Δt μ⁻¹ K e_n + ℓ_n
        scale = sum(float(np.linalg.norm(x)) for x in (momentum, current, restoring, load))
        delta = self.dt * v
        residuals = []
        for iteration in range(self.max_iterations + 1):
            trial_current = self.conduction.apply(e + delta)
            residual = self.linear_part @ delta + (trial_current - current) - fixed
            norm = float(np.linalg.norm(residual))
            residuals.append(norm / scale if scale > 0 else norm)
            if not np.isfinite(norm):
                break
            if norm <= self.rtol * scale:
                return NewtonStep(e + delta, (2.0 / self.dt) * delta - v, trial_current,
                                  iteration, np.asarray(residuals))
            if iteration == self.max_iterations:
                break
            delta = delta - self._solve(self.linear_part + self.conduction.jacobian(e + delta),
                                        residual)
        raise SolverError(f"Newton did not converge: relative residual {residuals[-1]:.3g} after "
                          f"{len(residuals) - 1} iterations (tolerance {self.rtol:g}, "
                          f"Δt={self.dt:g})")

    @staticmethod
    def _solve(jacobian: sp.spmatrix, rhs: np.ndarray) -> np.ndarray:
        try:
            lu = spla.splu(sp.csc_matrix(jacobian), permc_spec="MMD_AT_PLUS_A",
                           diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        except RuntimeError as exc:
            raise SolverError(f"Newton Jacobian factorisation failed: {exc}") from None
        return lu.solve(rhs)


@dataclass(frozen=True)
class NonlinearRun:
    """Histories of a run from rest: ``fields`` observe @ e_n (steps + 1, m); ``joule`` the
    dissipated power N(e_n)·e_n = ∫ σ(|E_h|) |E_h|² dx (steps + 1,); per step the Newton
    ``iterations`` (steps,) and ``residuals`` (their relative histories); with ``energy=True``
    the discrete ``energy`` E_n (steps + 1,), the step's ``load_work`` and ``dissipation``
    (steps,), the two terms of eq. (9)."""

    fields: np.ndarray = field(repr=False)
    joule: np.ndarray = field(repr=False)
    iterations: np.ndarray
    residuals: list[np.ndarray] = field(repr=False)
    energy: np.ndarray | None = field(default=None, repr=False)
    load_work: np.ndarray | None = field(default=None, repr=False)
    dissipation: np.ndarray | None = field(default=None, repr=False)


def nonlinear_run(stepper: NonlinearNewmarkStepper, load_vector: np.ndarray,
                  coefficients: np.ndarray, observe: sp.spmatrix | None = None, *,
                  energy: bool = False, on_step=None) -> NonlinearRun:
    """March eqs. (5)–(8) from rest with step loads ℓ_n = ``coefficients[n]`` · ``load_vector``
    (``step_loads`` of a signal; (steps,)); ``observe`` (m, n_free) picks the recorded fields
    (default: all free DOFs). ``on_step(n)`` is called after every step."""
    ops = stepper.ops
    b = np.asarray(load_vector, dtype=np.float64)
    c = np.asarray(coefficients, dtype=np.float64)
    if b.shape != (ops.n_free,) or c.ndim != 1 or not np.all(np.isfinite(c)):
        raise InputError(f"load_vector ({ops.n_free},) and finite coefficients (steps,) "
                         f"expected, got {b.shape} and {c.shape}")
    observe = sp.identity(ops.n_free, format="csr") if observe is None else observe
    steps = c.size
    e, v = np.zeros(ops.n_free), np.zeros(ops.n_free)
    current = stepper.conduction.apply(e)
    fields = np.empty((steps + 1, observe.shape[0]))
    joule = np.empty(steps + 1)
    iterations = np.empty(steps, dtype=np.int64)
    residuals = []
    energies, work, loss = (np.zeros(steps + 1), np.empty(steps), np.empty(steps)) if energy \
        else (None, None, None)
    fields[0], joule[0] = observe @ e, current @ e
    for n in range(steps):
        load = c[n] * b
        try:
            result = stepper.step(e, v, load, current)
        except SolverError as exc:
            raise SolverError(f"step {n + 1} of {steps}: {exc}") from None
        if energy:
            work[n] = load @ (0.5 * (v + result.v))
            loss[n] = (result.current - current) @ (result.e - e) / stepper.dt
            energies[n + 1] = _energy(stepper, result.e, result.v)
        e, v, current = result.e, result.v, result.current
        fields[n + 1], joule[n + 1] = observe @ e, current @ e
        iterations[n] = result.iterations
        residuals.append(result.residuals)
        if on_step is not None:
            on_step(n + 1)
    return NonlinearRun(fields, joule, iterations, residuals, energies, work, loss)


def _energy(stepper: NonlinearNewmarkStepper, e: np.ndarray, v: np.ndarray) -> float:
    """E = ½ ε vᵀ M v + ½ μ⁻¹ eᵀ K e (eq. 9)."""
    ops, material = stepper.ops, stepper.material
    return float(0.5 * material.eps * (v @ (ops.mass @ v))
                 + 0.5 / material.mu * (e @ (ops.curlcurl @ e)))


__all__ = ["NEWTON_RTOL", "NEWTON_MAX_ITERATIONS", "NewtonStep", "NonlinearNewmarkStepper",
           "NonlinearRun", "nonlinear_run"]
