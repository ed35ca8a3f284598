"""Newton–Newmark for a nonlinear region: the exact Newton iterates of
:mod:`surrogate.fem.nonlinear_newmark` at the cost of a linear step plus m-dimensional algebra.

With the conduction confined to a region (:class:`~surrogate.fem.time_domain_operators.
region_conduction.RegionConduction`: N(e) = P Ñ(Pᵀe), N' = P J Pᵀ, P the (n, m) injection of
the region DOFs), the step's residual and Newton matrix (eqs. 7–8 there) are

    R(δ) = A δ + P (Ñ(Pᵀ(e_n + δ)) − Ñ(Pᵀe_n)) − f,   J(δ) = A + P J̃ Pᵀ,
    A = 2ε/Δt M + Δt/2 μ⁻¹ K  (constant for fixed Δt, ε, μ),   f = 2ε M v_n − Δt μ⁻¹ K e_n + ℓ_n.

Formulation: the Schur complement onto the region DOFs (not Woodbury per iteration). A is
factorised once per stepper, W = A⁻¹P (m back-solves) and S = PᵀA⁻¹P = PᵀW, Σ = S⁻¹ (the
Schur complement A_RR − A_RO A_OO⁻¹ A_OR of A onto the region) once. Every step makes one
back-solve y = A⁻¹f, g = Pᵀy; any region value u then defines the full increment whose linear
equations hold exactly, δ(u) = y − W Σ (g − u) (Pᵀδ(u) = u), whose full residual is

    R(δ(u)) = P ρ(u),   ρ(u) = ΔÑ(u) + Σ (u − g),   ΔÑ(u) = Ñ(Pᵀe_n + u) − Ñ(Pᵀe_n),      (10)

and Newton's method on ρ, (Σ + J̃(u_k)) (u_{k+1} − u_k) = −ρ(u_k) (m × m, symmetric positive
definite: Cholesky), produces exactly the full Newton iterates δ_k = δ(u_k) of the dense
stepper (by the Woodbury identity (A + P J̃ Pᵀ)⁻¹ = A⁻¹ − W (Σ + J̃)⁻¹ Wᵀ, from its first
iterate on). Why this one: Woodbury per iteration, x = A⁻¹r − W (I + J̃ S)⁻¹ J̃ Wᵀ r, costs a
back-solve with A per iteration; in (10) the back-solve is per step and an iteration is one
evaluation of Ñ, J̃ on the region and a dense m × m Cholesky, and ρ is the gradient of a
strictly convex function (Σ SPD, Ñ monotone), so the reduced problem keeps a unique solution.

The predictor δ₀ = Δt v_n (the dense stepper's) is not of the form δ(u): its residual (k = 0)
is formed in full (one sparse product), and the first Newton update from it is the same
formula with u₀ = Pᵀδ₀. Residual histories, iteration counts and steps equal the dense
stepper's to round-off (its tests), at a cost per step of one back-solve, O(n m) and
iterations × (region quadrature + m³/3).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from surrogate.core.errors import InputError, SolverError
from surrogate.fem.nonlinear_newmark import (
    NEWTON_MAX_ITERATIONS,
    NEWTON_RTOL,
    NewtonStep,
    NonlinearNewmarkStepper,
)
from surrogate.fem.time_domain import Material


class SchurNewmarkStepper(NonlinearNewmarkStepper):
    """Eqs. (5)–(8) solved through (10) for a region ``conduction`` (``dofs``,
    ``region_apply``, ``region_jacobian``); the same interface and iterates as
    :class:`~surrogate.fem.nonlinear_newmark.NonlinearNewmarkStepper`."""

    def __init__(self, ops: Any, conduction: Any, material: Material, dt: float, *,
                 rtol: float = NEWTON_RTOL, max_iterations: int = NEWTON_MAX_ITERATIONS):
        super().__init__(ops, conduction, material, dt, rtol=rtol, max_iterations=max_iterations)
        if not all(hasattr(conduction, name) for name in ("dofs", "region_apply",
                                                          "region_jacobian")):
            raise InputError("the Schur stepper needs a region conduction (RegionConduction: "
                             "dofs, region_apply, region_jacobian)")
        self.dofs = np.asarray(conduction.dofs, dtype=np.int64)
        try:
            self.lu = spla.splu(sp.csc_matrix(self.linear_part), permc_spec="MMD_AT_PLUS_A",
                                diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        except RuntimeError as exc:
            raise SolverError(f"Newmark matrix factorisation failed: {exc}") from None
        injection = np.zeros((ops.n_free, self.dofs.size))
        injection[self.dofs, np.arange(self.dofs.size)] = 1.0
        self.coupling = self.lu.solve(injection)  # W = A⁻¹ P (n, m)
        response = self.coupling[self.dofs]  # S = Pᵀ A⁻¹ P
        try:
            factor = sla.cho_factor(0.5 * (response + response.T))
        except sla.LinAlgError:
            raise SolverError("the region's response matrix P^T A^-1 P is not positive "
                              "definite") from None
        schur = sla.cho_solve(factor, np.eye(self.dofs.size))
        self.schur = 0.5 * (schur + schur.T)  # Σ = S⁻¹

    def with_conduction(self, conduction: Any) -> SchurNewmarkStepper:
        """This stepper (its factorisation, W and Σ) for another law on the same region
        (``conduction.dofs`` equal to this one's; e.g. ``RegionConduction.with_law``)."""
        if not np.array_equal(np.asarray(getattr(conduction, "dofs", ())), self.dofs):
            raise InputError("with_conduction needs a conduction on the same region DOFs")
        other = copy.copy(self)
        other.conduction = conduction
        return other

    def step(self, e: np.ndarray, v: np.ndarray, load: np.ndarray | float = 0.0,
             current: np.ndarray | None = None) -> NewtonStep:
        """(e_{n+1}, v_{n+1}) from (e_n, v_n) and ℓ_n = ``load`` (eqs. 5–8 through (10));
        ``current`` is N(e_n) when the caller has it."""
        dofs, region = self.dofs, self.conduction
        current = region.apply(e) if current is None else current
        momentum, restoring = self.dt * (self.inertia @ v), 2.0 * (self.stiffness @ e)
        fixed = momentum - restoring + load
        scale = sum(float(np.linalg.norm(x)) for x in (momentum, current, restoring, load))
        base, base_current = e[dofs], current[dofs]
        predictor = self.dt * v
        u = predictor[dofs]
        trial = region.region_apply(base + u)
        full = self.linear_part @ predictor - fixed
        full[dofs] += trial - base_current
        norm = float(np.linalg.norm(full))  # k = 0: the predictor's full residual
        residuals = [norm / scale if scale > 0 else norm]
        if np.isfinite(norm) and norm <= self.rtol * scale:
            return NewtonStep(e + predictor, v.copy(), self._current(trial), 0,
                              np.asarray(residuals))
        target = self.lu.solve(fixed)  # y = A⁻¹ f
        g = target[dofs]
        rho = (trial - base_current) + self.schur @ (u - g)  # the update's right side at u₀
        for iteration in range(1, self.max_iterations + 1):
            if not np.isfinite(norm):
                break
            matrix = self.schur + region.region_jacobian(base + u)
            try:
                u = u - sla.cho_solve(sla.cho_factor(matrix), rho)
            except sla.LinAlgError:
                raise SolverError("the reduced Newton matrix is not positive definite "
                                  f"(Δt={self.dt:g})") from None
            trial = region.region_apply(base + u)
            rho = (trial - base_current) + self.schur @ (u - g)
            norm = float(np.linalg.norm(rho))
            residuals.append(norm / scale if scale > 0 else norm)
            if norm <= self.rtol * scale:
                delta = target - self.coupling @ (self.schur @ (g - u))
                return NewtonStep(e + delta, (2.0 / self.dt) * delta - v, self._current(trial),
                                  iteration, np.asarray(residuals))
        raise SolverError(f"Newton did not converge: relative residual {residuals[-1]:.3g} after "
                          f"{len(residuals) - 1} iterations (tolerance {self.rtol:g}, "
                          f"Δt={self.dt:g})")

    def _current(self, region_values: np.ndarray) -> np.ndarray:
        out = np.zeros(self.ops.n_free)
        out[self.dofs] = region_values
        return out


__all__ = ["SchurNewmarkStepper"]
