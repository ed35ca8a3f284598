"""Benchmark: the inclusion family on meshes fitted to its interface, meshing time included.

On the toolkit's cylinder levels the FEM baselines of ``inclusion`` do not follow the sphere
|x − c| = ρ where φ jumps, which caps every order's convergence (issue 28, note on
``inclusion``). A user would mesh each problem to fit the interface. For ``--problems`` draws
(seed ``--seed``) this script meshes the cylinder with the ball embedded (gmsh's OCC kernel:
the cylinder fragmented by the sphere, so the tets conform to a polyhedral sphere; mesh sizes
``--h``), sets φ per tet from its gmsh volume (κ in the ball, 1 outside: exact on the fitted
mesh), and solves with the strongest installed backend (``--backend``, default: the one with
the highest order) at ``--orders``. Per problem every case records: DOFs, the meshing seconds
(gmsh, conversion to arrays), the FEM seconds (mesh → u_h, the solution's stages; φ there is
looked up by point location, a cost a tag-aware solver does not pay) and their sum, and the
relative L² difference to a reference: the same backend at order ``--reference-order`` on a
fitted mesh of size ``--reference-h``. The unfitted baselines (the cylinder's ``--levels``, φ
sampled at the quadrature points) are judged against the same reference; their meshes are
built once and not timed (as in ``surrogate evaluate``). Finally, per target relative error
(``--targets``) and kind (fitted, unfitted), the fastest case that reaches it.

Prints one JSON object. Smoke (seconds): python benchmarks/inclusion_fitted_mesh.py
--problems 1 --h 0.6 --levels 1 --orders 1 2 --reference-h 0.45 --reference-order 2
Run (quiet machine, minutes): OMP_NUM_THREADS=1 python benchmarks/inclusion_fitted_mesh.py
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

CYLINDER = {"radius": 1.0, "height": 1.0}  # the `cylinder` domain: x₁² + x₂² ≤ 1, 0 ≤ x₃ ≤ 1


def fitted_mesh(centre: np.ndarray, radius: float, h: float) -> tuple[object, np.ndarray,
                                                                        float]:
    """(skfem mesh, per-tet "inside the ball" flags, seconds) of the cylinder meshed by gmsh
    with the sphere |x − centre| = radius embedded (every tet on one side of it)."""
    from surrogate.fem.gmsh_meshing import import_gmsh
    from surrogate.fem.meshes import finalize_mesh

    gmsh = import_gmsh()
    start = time.perf_counter()
    gmsh.initialize(["surrogate"], readConfigFiles=False, interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("inclusion")
        occ = gmsh.model.occ
        cylinder = occ.addCylinder(0, 0, 0, 0, 0, CYLINDER["height"], CYLINDER["radius"])
        ball = occ.addSphere(*map(float, centre), float(radius))
        occ.fragment([(3, cylinder)], [(3, ball)])
        occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", float(h))
        gmsh.model.mesh.generate(3)
        tags, coords, _ = gmsh.model.mesh.getNodes()
        index = np.empty(int(tags.max()) + 1, dtype=np.int64)
        index[tags.astype(np.int64)] = np.arange(len(tags))
        points = coords.reshape(-1, 3)
        tets, inside = [], []
        for _, volume in gmsh.model.getEntities(3):
            types, _, nodes = gmsh.model.mesh.getElements(3, volume)
            block = np.concatenate([n for kind, n in zip(types, nodes, strict=True)
                                    if kind == 4]).astype(np.int64).reshape(-1, 4)
            mass = gmsh.model.occ.getMass(3, volume)
            is_ball = abs(mass - 4.0 / 3.0 * np.pi * radius ** 3) < 1e-6
            tets.append(index[block])
            inside.append(np.full(len(block), is_ball))
    finally:
        gmsh.finalize()
    t = np.concatenate(tets)
    mesh = finalize_mesh(points.T.copy(), t.T.copy())
    # finalize_mesh keeps the tet order (it only flips orientation and drops unused nodes)
    return mesh, np.concatenate(inside), time.perf_counter() - start


class FittedInclusion:
    """The member's f with φ per tet of a fitted mesh (κ in the ball's tets) and u × n = 0."""

    has_exact = True  # the boundary data u = 0 are exact

    def __init__(self, problem, mesh, inside: np.ndarray):
        self.name, self.f = problem.name, problem.f
        self.mesh, self.inside, self.contrast = mesh, inside, problem.contrast

    def phi(self, points: np.ndarray) -> np.ndarray:
        from surrogate.fem.point_evaluation import locate_with_outside

        cells, _ = locate_with_outside(self.mesh, points, "extrapolate")
        return np.where(self.inside[cells], self.contrast, 1.0)

    def u(self, points: np.ndarray) -> np.ndarray:
        return np.zeros((len(points), 3))


def _case(method, mesh, problem, reference, threads: int) -> dict:
    """DOFs, FEM seconds (mesh → u_h) and relative L² difference to ``reference``."""
    from surrogate.fem.families.truth import l2_difference

    solution = method.run(mesh, problem, method="solve", threads=threads)
    diff, norm = l2_difference(solution, reference, intorder=4)
    return {"backend": method.backend, "order": method.order, "ndofs": int(solution.ndofs),
            "fem_seconds": float(sum(solution.timings.values())),
            "relative_error": diff / norm if norm > 0 else None}


def study_problem(problem, args: argparse.Namespace) -> dict:
    """Fitted and unfitted cases of one member against its fitted reference."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.families.truth import ZeroWall
    from surrogate.fem.hcurl.registry import fem_method

    mesh, inside, _ = fitted_mesh(problem.centre, problem.radius, args.reference_h)
    reference = fem_method(args.backend, args.reference_order).run(
        mesh, FittedInclusion(problem, mesh, inside), method="solve", threads=args.threads)
    fitted, unfitted = [], []
    for h in args.h:
        mesh, inside, mesh_seconds = fitted_mesh(problem.centre, problem.radius, h)
        data = FittedInclusion(problem, mesh, inside)
        for order in args.orders:
            row = _case(fem_method(args.backend, order), mesh, data, reference, args.threads)
            fitted.append({"h": h, "n_cells": int(mesh.t.shape[1]),
                           "mesh_seconds": mesh_seconds, **row,
                           "total_seconds": mesh_seconds + row["fem_seconds"]})
    for level in args.levels:
        mesh = get_domain("cylinder").mesh(level)
        for order in args.orders:
            row = _case(fem_method(args.backend, order), mesh, ZeroWall(problem), reference,
                        args.threads)
            unfitted.append({"level": level, "n_cells": int(mesh.t.shape[1]),
                             "mesh_seconds": 0.0, **row, "total_seconds": row["fem_seconds"]})
    fastest = {}
    for target in args.targets:
        fastest[str(target)] = {kind: _fastest(rows, target) for kind, rows in
                                (("fitted", fitted), ("unfitted", unfitted))}
    return {"params": [float(v) for v in problem.params], "reference_ndofs":
            int(reference.ndofs), "fitted": fitted, "unfitted": unfitted,
            "fastest_at_target": fastest}


def _fastest(rows: list[dict], target: float) -> dict | None:
    """The case of least total seconds whose error is at most ``target``; None if none."""
    hits = [r for r in rows if r["relative_error"] is not None
            and r["relative_error"] <= target]
    return min(hits, key=lambda r: r["total_seconds"]) if hits else None


def _arguments() -> argparse.Namespace:
    from surrogate.fem.hcurl.registry import BACKENDS, installed_backends

    strongest = max(installed_backends(), key=lambda name: max(BACKENDS[name].orders))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--backend", default=strongest)
    parser.add_argument("--orders", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--h", type=float, nargs="+", default=[0.5, 0.35, 0.25])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--reference-h", type=float, default=0.12)
    parser.add_argument("--reference-order", type=int, default=3)
    parser.add_argument("--targets", type=float, nargs="+", default=[0.01, 0.02, 0.05])
    parser.add_argument("--threads", type=int, default=1)
    return parser.parse_args()


def main() -> None:
    from surrogate.core.thread_settings import thread_settings
    from surrogate.fem.families import get_family

    args = _arguments()
    family = get_family("inclusion")
    start = time.perf_counter()
    problems = [study_problem(family.problem(mu), args)
                for mu in family.sample(args.problems, args.seed)]
    print(json.dumps({
        "benchmark": "inclusion_fitted_mesh", "backend": args.backend, "orders": args.orders,
        "h": args.h, "levels": args.levels, "reference": {"h": args.reference_h,
                                                          "order": args.reference_order},
        "threads": thread_settings(), "load_average": os.getloadavg(),
        "seconds": time.perf_counter() - start, "problems": problems}, indent=1))


if __name__ == "__main__":
    main()
