"""Time-domain Maxwell in a perfectly conducting cavity: N0 in space, Newmark in time.

Strong form, with constant scalar permittivity ε > 0, permeability μ > 0, conductivity σ ≥ 0:

    ε ∂²E/∂t² + σ ∂E/∂t + curl(μ⁻¹ curl E) = −∂J/∂t  in Ω,   E × n = 0 on ∂Ω.

Semi-discrete (lowest-order Nédélec, boundary edge DOFs removed: zero tangential trace):

    ε M ë + σ M ė + μ⁻¹ K e = g(t),   g_i(t) = −∫ ∂J/∂t · φ_i dx,

with M the N0 mass and K the curl–curl matrix on the interior edges. For J = s(t) J₀(x) the
load is g(t) = −s'(t) b₀ with b₀_i = ∫ J₀ · φ_i dx.

Time stepping: Newmark with β = 1/4, γ = 1/2 (average acceleration). Written in (e, v) form,
which is the same scheme (the trapezoidal rule on the first-order system) and needs no
initial acceleration:

    A v_{n+1} = B v_n − Δt μ⁻¹ K e_n + Δt/2 (g_n + g_{n+1}),   e_{n+1} = e_n + Δt/2 (v_n + v_{n+1}),
    A = ε M + (Δt/2) σ M + (Δt²/4) μ⁻¹ K,   B = ε M − (Δt/2) σ M − (Δt²/4) μ⁻¹ K.

A is factorised once per (ε, μ, σ, Δt) (SuperLU, symmetric ordering); every step is one
back-substitution, for one right-hand side or a matrix of them (many sources at once). The
discrete energy E_n = ½ ε v_nᵀ M v_n + ½ μ⁻¹ e_nᵀ K e_n obeys exactly

    E_{n+1} − E_n = (Δt/4) (v_n + v_{n+1})·(g_n + g_{n+1}) − (σ Δt/4) ‖v_n + v_{n+1}‖²_M,

so it is conserved without source and σ = 0, and decreases monotonically with σ > 0.

The scheme is linear and time-invariant: with zero initial state, the state after n steps is
Σ_k Φ^{n−1−k} w c_k for step loads c_k b₀. :func:`impulse_response` runs it once for a unit
load and :func:`convolve_response` gives every signal's observed response from it (discrete
Duhamel principle, equal to stepping up to round-off).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, ElementTetN0, LinearForm, MeshTet
from skfem.helpers import curl, dot

from surrogate.core.errors import InputError, SolverError
from surrogate.fem.mesh_quality import check_mesh

ASSEMBLY_INTORDER = 2  # exact for the N0 mass and curl–curl matrices
LOAD_INTORDER = 6  # quadrature of b₀ = ∫ J₀·φ_i for a Gaussian J₀ narrower than the mesh
DIPOLE_WIDTH = 0.1  # default standard deviation of the Gaussian dipole J₀


@dataclass(frozen=True)
class Material:
    """Constant scalars: permittivity ``eps`` > 0, permeability ``mu`` > 0, conductivity ≥ 0."""

    eps: float = 1.0
    mu: float = 1.0
    sigma: float = 0.0

    def __post_init__(self) -> None:
        for name, low, strict in (("eps", 0.0, True), ("mu", 0.0, True), ("sigma", 0.0, False)):
            value = getattr(self, name)
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise InputError(f"material {name}={value!r} is not a number") from None
            if not np.isfinite(number) or number < low or (strict and number == low):
                raise InputError(f"material {name}={value!r}: expected a finite number "
                                 f"{'>' if strict else '>='} {low:g}")
            object.__setattr__(self, name, number)


class FreeDofs:
    """Cavity matrices on the ``free`` DOFs of a space of ``ndof`` (walls zero): the count of
    unknowns and the scatter back to every DOF."""

    free: np.ndarray
    ndof: int

    @property
    def n_free(self) -> int:
        """Number of free DOFs (the unknowns of the time-domain problem)."""
        return int(self.free.size)

    def full(self, values: np.ndarray) -> np.ndarray:
        """Free DOF values (..., n_free) -> all DOFs (..., ndof), zero on the walls."""
        values = np.asarray(values, dtype=np.float64)
        out = np.zeros((*values.shape[:-1], int(self.ndof)))
        out[..., self.free] = values
        return out


@dataclass(frozen=True)
class CavityOperators(FreeDofs):
    """N0 matrices of a PEC cavity restricted to the ``free`` (interior) edge DOFs.

    ``mass`` M and ``curlcurl`` K (μ = 1) are (n_free, n_free) CSR; ``free`` indexes the
    DOFs of ``basis`` (all edges, skfem orientation); boundary DOFs are zero.
    """

    mesh: MeshTet = field(repr=False)
    basis: Basis = field(repr=False)
    mass: sp.csr_matrix = field(repr=False)
    curlcurl: sp.csr_matrix = field(repr=False)
    free: np.ndarray = field(repr=False)

    @property
    def ndof(self) -> int:
        """All edge DOFs (``basis.N``)."""
        return int(self.basis.N)

    def cell_centre_matrix(self) -> sp.csr_matrix:
        """(3·n_cells, n_free): E_h at every tet's barycentre."""
        from surrogate.fem.probes import n0_cell_centre_matrix

        return sp.csr_matrix(n0_cell_centre_matrix(self.basis)[:, self.free])

    def node_matrix(self) -> sp.csr_matrix:
        """(3·n_nodes, n_free): E_h projected to the nodes (volume-weighted cell average)."""
        from surrogate.fem.probes import n0_node_matrix

        return sp.csr_matrix(n0_node_matrix(self.basis)[:, self.free])


def cavity_operators(mesh: MeshTet) -> CavityOperators:
    """Assemble M_ij = ∫ φ_j·φ_i and K_ij = ∫ curl φ_j · curl φ_i on the interior edges."""
    check_mesh(mesh)
    basis = Basis(mesh, ElementTetN0(), intorder=ASSEMBLY_INTORDER)
    free = np.asarray(basis.complement_dofs(basis.get_dofs()), dtype=np.int64)
    if free.size == 0:
        raise InputError("the mesh has no interior edges: refine it (a higher level)")
    mass = sp.csr_matrix(_mass.assemble(basis))[free][:, free]
    curlcurl = sp.csr_matrix(_curlcurl.assemble(basis))[free][:, free]
    return CavityOperators(mesh, basis, sp.csr_matrix(mass), sp.csr_matrix(curlcurl), free)


def gaussian_dipole(points: np.ndarray, centre, width: float = DIPOLE_WIDTH,
                    direction=(0.0, 0.0, 1.0)) -> np.ndarray:
    """J₀(x) = (2π w²)^{−3/2} exp(−|x − centre|² / (2 w²)) d, points (N, 3) -> (N, 3).

    A unit current moment: ∫_{R³} J₀ dx = d (``direction``), whatever the width w.
    """
    x = np.asarray(points, dtype=np.float64)
    r2 = np.sum((x - np.asarray(centre, dtype=np.float64)) ** 2, axis=-1)
    density = np.exp(-0.5 * r2 / width**2) / (2.0 * np.pi * width**2) ** 1.5
    return density[..., None] * np.asarray(direction, dtype=np.float64)


def dipole_load(ops: CavityOperators, centre, width: float = DIPOLE_WIDTH,
                direction=(0.0, 0.0, 1.0)) -> np.ndarray:
    """b₀_i = ∫ J₀ · φ_i dx (degree-6 quadrature) on the interior edges, shape (n_free,)."""
    centre = np.asarray(centre, dtype=np.float64)
    if centre.shape != (3,) or not np.all(np.isfinite(centre)):
        raise InputError(f"dipole centre must be 3 finite numbers, got {centre.tolist()}")
    if not (np.isfinite(width) and width > 0):
        raise InputError(f"dipole width must be a finite number > 0, got {width!r}")
    basis = Basis(ops.mesh, ElementTetN0(), intorder=LOAD_INTORDER)
    x = np.asarray(basis.global_coordinates())  # (3, n_tets, n_qp)
    j0 = gaussian_dipole(x.reshape(3, -1).T, centre, width, direction)
    j0 = np.ascontiguousarray(j0.T).reshape(x.shape)
    return np.asarray(_load.assemble(basis, j0=j0))[ops.free]


class NewmarkStepper:
    """One average-acceleration Newmark step for ε M ë + σ M ė + μ⁻¹ K e = g, A factorised once.

    States are (n_free,) or (n_free, k) for k right-hand sides advanced together. ``ops``
    needs only ``mass``, ``curlcurl`` and ``n_free``: the N0 operators here, or those of any
    order from :mod:`surrogate.fem.time_domain_operators`.
    """

    def __init__(self, ops: CavityOperators, material: Material, dt: float):
        if isinstance(dt, bool) or not isinstance(dt, (int, float, np.number)) \
                or not (np.isfinite(dt) and dt > 0):
            raise InputError(f"time step dt={dt!r}: expected a finite number > 0")
        self.ops, self.material, self.dt = ops, material, float(dt)
        eps, mu, sigma = material.eps, material.mu, material.sigma
        m, k = ops.mass, ops.curlcurl / mu
        a = (eps + 0.5 * dt * sigma) * m + (0.25 * dt * dt) * k
        self.rhs_velocity = sp.csr_matrix((eps - 0.5 * dt * sigma) * m - (0.25 * dt * dt) * k)
        self.rhs_field = sp.csr_matrix(dt * k)
        try:
            self.lu = spla.splu(sp.csc_matrix(a), permc_spec="MMD_AT_PLUS_A",
                                diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        except RuntimeError as exc:
            raise SolverError(f"Newmark matrix factorisation failed: {exc}") from None

    def step(self, e: np.ndarray, v: np.ndarray, load: np.ndarray | float = 0.0
             ) -> tuple[np.ndarray, np.ndarray]:
        """(e_{n+1}, v_{n+1}) from (e_n, v_n); ``load`` = Δt/2 (g_n + g_{n+1})."""
        rhs = self.rhs_velocity @ v - self.rhs_field @ e + load
        v_next = self.lu.solve(rhs)
        return e + (0.5 * self.dt) * (v + v_next), v_next


def step_loads(ds: np.ndarray, dt: float) -> np.ndarray:
    """Step-load coefficients c_n = −Δt/2 (s'(t_n) + s'(t_{n+1})), (T, ...) -> (T − 1, ...).

    With g(t) = −s'(t) b₀ the n-th step's load Δt/2 (g_n + g_{n+1}) is c_n b₀.
    """
    ds = np.asarray(ds, dtype=np.float64)
    return -0.5 * dt * (ds[:-1] + ds[1:])


def newmark_run(stepper: NewmarkStepper, steps: int, *, load_vector: np.ndarray | None = None,
                coefficients: np.ndarray | None = None, e0: np.ndarray | None = None,
                v0: np.ndarray | None = None, observe: sp.spmatrix | None = None,
                on_step=None) -> tuple[np.ndarray, np.ndarray]:
    """Histories (steps + 1, m[, k]) of e_n and v_n (or ``observe @ e_n``, ``observe @ v_n``).

    Step n adds the load ``load_vector ⊗ coefficients[n]``; ``coefficients`` is (steps,) for
    one right-hand side or (steps, k) for k of them. ``e0``/``v0`` default to zero.
    ``on_step(n)`` is called after every step.
    """
    n_free = stepper.ops.n_free
    c = None if coefficients is None else np.asarray(coefficients, dtype=np.float64)
    if c is not None and (load_vector is None or c.shape[0] != steps or c.ndim > 2):
        raise InputError(f"coefficients must have shape ({steps},) or ({steps}, k) together "
                         "with a load_vector")
    shape = (n_free,) if c is None or c.ndim == 1 else (n_free, c.shape[1])
    e = _initial(e0, shape, "e0")
    v = _initial(v0, shape, "v0")
    b = None if load_vector is None else np.asarray(load_vector, dtype=np.float64)
    if b is not None and b.shape != (n_free,):
        raise InputError(f"load_vector must have shape ({n_free},), got {b.shape}")
    if b is not None and len(shape) == 2:
        b = b[:, None]
    rows = n_free if observe is None else observe.shape[0]
    e_hist = np.empty((steps + 1, rows, *shape[1:]))
    v_hist = np.empty_like(e_hist)
    e_hist[0], v_hist[0] = _observed(observe, e), _observed(observe, v)
    for n in range(steps):
        e, v = stepper.step(e, v, 0.0 if c is None else b * c[n])
        e_hist[n + 1], v_hist[n + 1] = _observed(observe, e), _observed(observe, v)
        if on_step is not None:
            on_step(n + 1)
    return e_hist, v_hist


def discrete_energy(ops: CavityOperators, material: Material, e: np.ndarray, v: np.ndarray
                    ) -> np.ndarray:
    """E_n = ½ ε v_nᵀ M v_n + ½ μ⁻¹ e_nᵀ K e_n for histories (T, n_free[, k]) -> (T[, k])."""
    e, v = np.asarray(e, dtype=np.float64), np.asarray(v, dtype=np.float64)
    return (0.5 * material.eps * _quadratic_form(ops.mass, v)
            + 0.5 / material.mu * _quadratic_form(ops.curlcurl, e))


def impulse_response(stepper: NewmarkStepper, load_vector: np.ndarray, steps: int,
                     observe: sp.spmatrix, on_step=None) -> np.ndarray:
    """h_j = observe @ e_{j+1} for a unit load c_0 = 1 at the first step, (steps, m)."""
    c = np.zeros(steps)
    if steps:
        c[0] = 1.0
    e_hist, _ = newmark_run(stepper, steps, load_vector=load_vector, coefficients=c,
                            observe=observe, on_step=on_step)
    return e_hist[1:]


def convolve_response(h: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """y_0 = 0, y_n = Σ_{k<n} c_k h_{n−1−k}: the observed field for step loads c, (T−1,) -> (T, m).

    A lower-triangular Toeplitz product per signal, so each signal's result depends only on
    its own coefficients and ``h`` (bitwise, however signals are grouped).
    """
    c = np.asarray(coefficients, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    if c.ndim != 1 or h.ndim != 2 or h.shape[0] != c.size:
        raise InputError(f"coefficients (T−1,) and h (T−1, m) disagree: {c.shape}, {h.shape}")
    out = np.zeros((c.size + 1, h.shape[1]))
    out[1:] = sla.toeplitz(c, np.zeros(c.size)) @ h
    return out


def _quadratic_form(matrix: sp.spmatrix, x: np.ndarray) -> np.ndarray:
    """x_nᵀ A x_n for a history x (T, n[, k]) -> (T[, k]), one sparse product for all n."""
    columns = np.moveaxis(x, 1, 0).reshape(x.shape[1], -1)  # (n, T·k)
    product = (matrix @ columns).reshape(x.shape[1], *x.shape[:1], *x.shape[2:])
    return np.sum(np.moveaxis(product, 0, 1) * x, axis=1)


def _initial(value: np.ndarray | None, shape: tuple[int, ...], name: str) -> np.ndarray:
    if value is None:
        return np.zeros(shape)
    arr = np.array(value, dtype=np.float64)
    if arr.shape != shape:
        raise InputError(f"{name} must have shape {shape}, got {arr.shape}")
    return arr


def _observed(observe: sp.spmatrix | None, x: np.ndarray) -> np.ndarray:
    return x if observe is None else observe @ x


@BilinearForm
def _mass(u, v, w):
    return dot(u, v)


@BilinearForm
def _curlcurl(u, v, w):
    return dot(curl(u), curl(v))


@LinearForm
def _load(v, w):
    return dot(w.j0, v)


__all__ = ["Material", "CavityOperators", "cavity_operators", "FreeDofs", "gaussian_dipole",
           "dipole_load", "NewmarkStepper", "step_loads", "newmark_run", "discrete_energy",
           "impulse_response", "convolve_response", "DIPOLE_WIDTH"]
