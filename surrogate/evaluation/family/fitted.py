"""Fitted FEM candidates of a family evaluation: the mixed solve on the member's own mesh.

For a family whose members have a fitted geometry (``inclusion``: the cylinder with the ball
glued in, :mod:`surrogate.fem.fitted`), on its training domain, each unseen member is meshed
to fit its interface with tets ≤ maxh, curved (degree max(order, 2)) and solved by NGSolve
at each order: mesh → u_h timed INCLUDING the geometry, meshing and curving (a user meshes
every new member). Its relative L² errors are measured like a level candidate's: at the
finest evaluated level's quadrature points (rule of degree ≥ ``error_intorder(order)``)
against the same u_ref, u_h read there by point location (a point the curved wall misses
extrapolated inwards). Torch-free.
"""

from __future__ import annotations

from typing import Any

from surrogate.core.errors import InputError, SolverError
from surrogate.evaluation.family.fem import LevelRules, relative_errors
from surrogate.evaluation.fem_timing import repeated_seconds

FITTED_MAXH = (0.5, 0.35)
"""Default largest tet sizes of the fitted candidates."""
FITTED_ORDERS = (1, 2, 3)
"""Default orders of the fitted candidates (without ``--fem-order``)."""
FITTED_BACKEND = "ngsolve"


def parse_maxh_list(text: str) -> tuple[float, ...]:
    """``"0.5,0.35"`` -> (0.5, 0.35); ``"none"`` -> () (no fitted candidates); InputError
    on anything else."""
    if str(text).strip().lower() == "none":
        return ()
    try:
        values = tuple(float(v) for v in str(text).split(","))
    except ValueError:
        raise InputError(f"--fem-fitted-maxh {text!r}: expected 'none' or comma-separated "
                         "sizes > 0 such as '0.5,0.35'") from None
    return check_maxh(values)


def check_maxh(values: tuple[float, ...], flag: str = "--fem-fitted-maxh") -> tuple[float, ...]:
    """``values`` distinct and decreasing, each a finite size > 0 (InputError naming
    ``flag`` otherwise)."""
    if any(not 0 < v < float("inf") for v in values):
        raise InputError(f"{flag}: every size must be a finite number > 0, got "
                         f"{list(values)}")
    return tuple(sorted(set(map(float, values)), reverse=True))


def has_fitted_geometry(family: Any) -> bool:
    """Whether ``family``'s members have a mesh fitted to them (``inclusion``)."""
    from surrogate.fem.families.truth import FITTED_FAMILIES

    return family.name in FITTED_FAMILIES


def require_fitted_geometry(family: Any, flag: str = "--fem-fitted-maxh") -> None:
    """InputError naming ``flag`` unless ``family``'s members have a fitted geometry."""
    if not has_fitted_geometry(family):
        raise InputError(f"family {family.name!r} has no fitted geometry: {flag} applies to "
                         "inclusion only")


def resolved_maxh(family: Any, maxh: tuple[float, ...] | None,
                  backends: tuple[str, ...] | None) -> tuple[float, ...]:
    """The fitted candidates' maxh for ``family``: none without a fitted geometry (InputError
    where asked for), :data:`FITTED_MAXH` by default where NGSolve is installed and among
    ``backends``; asked for without NGSolve: InputError."""
    from surrogate.fem.hcurl.registry import backend_installed, check_backend

    if not has_fitted_geometry(family):
        if maxh:
            require_fitted_geometry(family)
        return ()
    allowed = backends is None or FITTED_BACKEND in backends
    if maxh is None:
        return FITTED_MAXH if allowed and backend_installed(FITTED_BACKEND) else ()
    if maxh and not allowed:
        raise InputError("--fem-fitted-maxh: the fitted candidates are ngsolve solves; add "
                         "ngsolve to --fem-backend or pass --fem-fitted-maxh none")
    if maxh:
        check_backend(FITTED_BACKEND)
    return tuple(maxh)


def fitted_orders(orders: tuple[int, ...] | None) -> tuple[int, ...]:
    """The fitted candidates' orders: ``--fem-order``'s that NGSolve offers, else
    :data:`FITTED_ORDERS`."""
    from surrogate.fem.hcurl.registry import BACKENDS

    if orders is None:
        return FITTED_ORDERS
    return tuple(k for k in orders if k in BACKENDS[FITTED_BACKEND].orders)


def fitted_key(order: int, maxh: float) -> str:
    """Record key of a fitted candidate, e.g. ``"ngsolve:3@0.35"``."""
    return f"{FITTED_BACKEND}:{int(order)}@{float(maxh):g}"


def fitted_mesh_name(maxh: float) -> str:
    """The mesh a fitted candidate names in its label, e.g. ``"fitted maxh 0.35"``."""
    return f"fitted maxh {float(maxh):g}"


def fitted_maxh_of(mesh: str | None) -> float | None:
    """The maxh of a fitted candidate's mesh name (:func:`fitted_mesh_name`'s inverse), None
    for a level (no mesh name) or another name."""
    prefix = fitted_mesh_name(0.0).rsplit(" ", 1)[0] + " "
    if not isinstance(mesh, str) or not mesh.startswith(prefix):
        return None
    try:
        return float(mesh[len(prefix):])
    except ValueError:
        return None


def fitted_solver(requested: str) -> str:
    """The solver of the fitted solves: the one asked for, but "auto" means "direct" (on the
    fitted curved meshes the sparse direct solve is ≈ 3× faster than auto's MINRES-BDDC above
    20k unknowns, :func:`~surrogate.fem.fitted.solve.fitted_truth`; a contender is timed at its
    fastest)."""
    return "direct" if requested == "auto" else requested


def fitted_dofs(problem: Any, maxh: float, orders: tuple[int, ...]) -> dict[int, int]:
    """H(curl) DOFs of each of ``orders`` on ``problem``'s fitted mesh of ``maxh``, counted
    on an uncurved meshing of it (curving moves nodes, not DOFs; untimed)."""
    from surrogate.fem.fitted.geometry import fitted_mesh
    from surrogate.fem.hcurl.registry import hcurl_dofs_of

    mesh = fitted_mesh(problem.centre, problem.radius, maxh, 1).ngmesh
    return {k: hcurl_dofs_of(mesh.nedge, mesh.nface, mesh.ne, k) for k in orders}


def fitted_fem(rules: LevelRules, options: Any, skipped: set[str]) -> dict[str, dict[str, Any]]:
    """``{fitted_key: entry}`` of every fitted candidate (``options.fem_fitted_maxh`` ×
    :func:`fitted_orders`) of ``rules.problem``, errors on ``rules``' level (module
    docstring); a solve under the repeat threshold timed as the fastest of
    ``options.repeats`` (each remeshing); a candidate above ``options.fem_max_dofs`` H(curl)
    DOFs is not solved, a failed solve is left out (both said in ``skipped``)."""
    from surrogate.fem.fitted.solve import fitted_truth
    from surrogate.fem.hcurl.errors import error_intorder

    problem, out = rules.problem, {}
    orders = fitted_orders(options.fem_orders)
    for maxh in options.fem_fitted_maxh or ():
        dofs = fitted_dofs(problem, maxh, orders)
        for order in orders:
            if dofs[order] > options.fem_max_dofs:
                skipped.add(f"{FITTED_BACKEND} order {order}, {fitted_mesh_name(maxh)}: "
                            f"more H(curl) DOFs than --fem-max-dofs {options.fem_max_dofs} on "
                            "some problems")
                continue
            def solve(order: int = order, maxh: float = maxh) -> Any:
                return fitted_truth(problem, order, maxh, solver=fitted_solver(options.solver))

            try:
                solution = solve()
                seconds = repeated_seconds(solution.seconds, lambda: solve().seconds,
                                           options.repeats)
            except SolverError:
                skipped.add(f"{FITTED_BACKEND} order {order}, {fitted_mesh_name(maxh)}: its "
                            "solve failed on some problems")
                continue
            rule = max(options.intorder, error_intorder(order))
            geometry, ref = rules.at(rule)
            values = solution.values_at(geometry.points, outside="extrapolate")
            out[fitted_key(order, maxh)] = {
                **relative_errors(values, ref, geometry.weights), "seconds": seconds,
                "mesh_seconds": float(solution.timings["mesh"]), "ndofs": int(solution.ndofs),
                "intorder": int(rule), "backend": FITTED_BACKEND, "order": int(order),
                "maxh": float(maxh), "curve_order": int(solution.mesh.curve_order),
                "n_cells": int(solution.mesh.n_cells), "error_level": int(rules.level)}
    return out


__all__ = ["FITTED_BACKEND", "FITTED_MAXH", "FITTED_ORDERS", "check_maxh", "fitted_fem",
           "fitted_dofs", "fitted_key", "fitted_maxh_of", "fitted_mesh_name", "fitted_orders",
           "fitted_solver", "has_fitted_geometry", "parse_maxh_list", "require_fitted_geometry",
           "resolved_maxh"]
