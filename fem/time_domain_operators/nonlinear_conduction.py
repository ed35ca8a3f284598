"""Field-dependent (varistor-like) conduction in the PEC cavity: the form N(e) and its Jacobian.

The medium of the nonlinear time-domain problem (issue 40). Strong form, with constant ε, μ > 0
and the conductivity a function of the local field strength:

    ε ∂²E/∂t² + ∂/∂t (σ(|E|) E) + curl(μ⁻¹ curl E) = −∂J/∂t  in Ω,   E × n = 0 on ∂Ω,   (1)
    σ(s) = σ₀ (1 + (s/E₀)²),   σ₀ ≥ 0, 0 < E₀ ≤ ∞,

(Ampère's law ε ∂ₜE + σ(|E|)E + J = curl H differentiated in time, with Faraday's law). It is a
smooth polynomial model of the field-grading conductivity of ZnO microvaristor compounds
(cf. Christen, Donzel & Greuter, "Nonlinear resistive electric field grading", IEEE Electr.
Insul. Mag. 26(6), 2010), where σ rises steeply with |E|. Why this medium: it lives in the
cavity of ``maxwell-td`` (the same converged spaces, dipole source and probes); it only
dissipates, so the scheme has an exact discrete energy balance; and E ↦ σ(|E|)E is strictly
monotone, so every implicit step has a unique solution that Newton's method finds.

Semi-discrete, on the cavity's H(curl) space (M, K of :mod:`.cavity`, free DOFs only):

    ε M ë + d/dt N(e) + μ⁻¹ K e = g(t),                                          (2)
    N(e)_i = ∫ σ(|E_h|) E_h · φ_i dx,   E_h = Σ_j e_j φ_j,                        (3)
    N'(e)_ij = ∫ σ₀ [(1 + |E_h|²/E₀²) φ_j · φ_i + 2/E₀² (E_h · φ_j)(E_h · φ_i)] dx.  (4)

N is the gradient of the convex Φ(e) = ∫ σ₀ (|E_h|²/2 + |E_h|⁴/(4 E₀²)) dx, so N' is symmetric,
N' ≥ σ₀ M and (N(a) − N(b))·(a − b) ≥ σ₀ ‖a − b‖²_M (strict monotonicity). For E₀ = ∞ (allowed:
the linear medium) N(e) = σ₀ M e. Both (3) and (4) come from one form and one quadrature rule,
of degree 4p for elements of polynomial degree p (exact: the integrand of (3) is of degree 4p;
p = max(order, 1)), so N' is the exact derivative of the discrete N: NGSolve assembles (3) with
``BilinearForm.Apply`` and (4) with ``AssembleLinearization`` of one symbolic form; skfem's N0
(p = 1) with a linear and a bilinear form of the interpolated field. The stepper that uses them
is :mod:`surrogate.fem.nonlinear_newmark`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from skfem import Basis, BilinearForm, ElementTetN0, LinearForm
from skfem.helpers import dot

from surrogate.core.errors import InputError


@dataclass(frozen=True)
class VaristorConductivity:
    """σ(s) = σ₀ (1 + (s/E₀)²) of eq. (1): ``sigma0`` ≥ 0 finite, ``e0`` > 0 (∞: linear)."""

    sigma0: float
    e0: float = math.inf

    def __post_init__(self) -> None:
        for name in ("sigma0", "e0"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise InputError(f"conductivity {name}={value!r} is not a number")
            object.__setattr__(self, name, float(value))
        if not (math.isfinite(self.sigma0) and self.sigma0 >= 0):
            raise InputError(f"conductivity sigma0={self.sigma0!r}: expected a finite "
                             "number >= 0")
        if math.isnan(self.e0) or self.e0 <= 0:
            raise InputError(f"conductivity e0={self.e0!r}: expected a number > 0 "
                             "(inf: the linear medium)")

    @property
    def inverse_e0_squared(self) -> float:
        """1 / E₀² (0 for the linear medium E₀ = ∞)."""
        return 0.0 if math.isinf(self.e0) else 1.0 / self.e0**2

    def __call__(self, magnitude: np.ndarray) -> np.ndarray:
        """σ(|E|) for field strengths ``magnitude`` (any shape)."""
        s = np.asarray(magnitude, dtype=np.float64)
        return self.sigma0 * (1.0 + self.inverse_e0_squared * s * s)


def conduction_operator(ops: Any, law: VaristorConductivity,
                        intorder: int | None = None) -> NGSolveConduction | N0Conduction:
    """N and N' (eqs. 3–4) on the free DOFs of cavity operators ``ops``: NGSolve's
    (:class:`~.ngsolve_operators.HCurlCavityOperators`, any order) or skfem's N0
    (:class:`~surrogate.fem.time_domain.CavityOperators`); ``intorder`` defaults to 4p."""
    if not isinstance(law, VaristorConductivity):
        raise InputError(f"expected a VaristorConductivity, got {type(law).__name__}")
    if intorder is not None and (isinstance(intorder, bool) or not isinstance(intorder, int)
                                 or intorder < 1):
        raise InputError(f"quadrature degree intorder={intorder!r}: expected an integer >= 1")
    if hasattr(ops, "space") and hasattr(ops, "order"):
        return NGSolveConduction(ops, law, intorder)
    if hasattr(ops, "basis") and isinstance(ops.basis.elem, ElementTetN0):
        return N0Conduction(ops, law, intorder)
    raise InputError(f"no nonlinear conduction form for operators of type {type(ops).__name__}"
                     " (NGSolve HCurl or skfem N0 cavity operators expected)")


class NGSolveConduction:
    """Eqs. (3)–(4) as one symbolic NGSolve form on ``ops.space`` (wall DOFs zero)."""

    def __init__(self, ops: Any, law: VaristorConductivity, intorder: int | None = None):
        import ngsolve

        self.ops, self.law = ops, law
        degree = 4 * max(int(ops.order), 1) if intorder is None else int(intorder)
        u, v = ops.space.TnT()
        sigma = law.sigma0 * (1.0 + law.inverse_e0_squared * ngsolve.InnerProduct(u, u))
        rule = {ngsolve.TET: ngsolve.IntegrationRule(ngsolve.TET, degree)}
        self.form = ngsolve.BilinearForm(ops.space, symmetric=False)
        self.form += sigma * ngsolve.InnerProduct(u, v) * ngsolve.dx(intrules=rule)
        self._field = ngsolve.GridFunction(ops.space)
        self._out = self._field.vec.CreateVector()
        self._pattern: tuple[int, np.ndarray, np.ndarray, sp.csr_matrix] | None = None

    def apply(self, e: np.ndarray) -> np.ndarray:
        """N(e) of eq. (3), (n_free,)."""
        self.form.Apply(self._set(e), self._out)
        return self._out.FV().NumPy()[self.ops.free].copy()

    def jacobian(self, e: np.ndarray) -> sp.csr_matrix:
        """N'(e) of eq. (4), (n_free, n_free) CSR (symmetric)."""
        self.form.AssembleLinearization(self._set(e))
        rows, cols, values = self.form.mat.COO()
        values = np.asarray(values)
        if self._pattern is None or self._pattern[0] != values.size:  # a new sparsity graph
            self._pattern = (values.size, *_free_pattern(np.asarray(rows), np.asarray(cols),
                                                          self.ops))
        _, keep, order, template = self._pattern
        out = template.copy()
        out.data = values[keep][order]
        return out

    def _set(self, e: np.ndarray) -> Any:
        self._field.vec.FV().NumPy()[:] = self.ops.full(_vector(e, self.ops.n_free))
        return self._field.vec


class N0Conduction:
    """Eqs. (3)–(4) for skfem's N0 (p = 1): forms of the interpolated field E_h."""

    def __init__(self, ops: Any, law: VaristorConductivity, intorder: int | None = None):
        self.ops, self.law = ops, law
        self.basis = Basis(ops.mesh, ElementTetN0(), intorder=4 if intorder is None
                           else int(intorder))
        self._constants = {"sigma0": law.sigma0, "inverse": law.inverse_e0_squared}

    def apply(self, e: np.ndarray) -> np.ndarray:
        """N(e) of eq. (3), (n_free,)."""
        full = _n0_current.assemble(self.basis, field=self._interpolate(e), **self._constants)
        return np.asarray(full)[self.ops.free]

    def jacobian(self, e: np.ndarray) -> sp.csr_matrix:
        """N'(e) of eq. (4), (n_free, n_free) CSR (symmetric)."""
        full = sp.csr_matrix(_n0_jacobian.assemble(self.basis, field=self._interpolate(e),
                                                   **self._constants))
        return sp.csr_matrix(full[self.ops.free][:, self.ops.free])

    def _interpolate(self, e: np.ndarray) -> Any:
        return self.basis.interpolate(self.ops.full(_vector(e, self.ops.n_free)))


def _vector(e: np.ndarray, n_free: int) -> np.ndarray:
    e = np.asarray(e, dtype=np.float64)
    if e.shape != (n_free,):
        raise InputError(f"a field of shape ({n_free},) expected, got {e.shape}")
    return e


def _free_pattern(rows: np.ndarray, cols: np.ndarray, ops: Any
                  ) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
    """Which COO entries lie in the free block, their CSR order, and the CSR template."""
    position = np.full(ops.ndof, -1, dtype=np.int64)
    position[ops.free] = np.arange(ops.n_free)
    r, c = position[rows], position[cols]
    keep = np.flatnonzero((r >= 0) & (c >= 0))
    order = np.lexsort((c[keep], r[keep]))
    r, c = r[keep][order], c[keep][order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=ops.n_free))])
    template = sp.csr_matrix((np.zeros(r.size), c, indptr), shape=(ops.n_free, ops.n_free))
    return keep, order, template


@LinearForm
def _n0_current(v, w):
    e = w.field
    return w.sigma0 * (1.0 + w.inverse * dot(e, e)) * dot(e, v)


@BilinearForm
def _n0_jacobian(u, v, w):
    e = w.field
    return w.sigma0 * ((1.0 + w.inverse * dot(e, e)) * dot(u, v)
                       + 2.0 * w.inverse * dot(e, u) * dot(e, v))


__all__ = ["VaristorConductivity", "conduction_operator", "NGSolveConduction", "N0Conduction"]
