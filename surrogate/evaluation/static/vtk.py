"""ParaView files of a static evaluation: one ``.vtu`` per domain and level, one ``.pvd`` each.

Nédélec fields (N0 as ``u_fem``, the complete-linear order 1 as ``u_fem1``) are projected to
the nodes (volume-weighted average of each cell's polynomial at the node) and evaluated exactly
at the cell centres; vectors have 3 components.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

VTK_POINT_FIELDS = {
    "u_exact": "exact solution at the nodes (problems with an exact solution)",
    "u_reference": "finest N0 solve at the nodes, NaN outside its mesh (no exact solution)",
    "u_nn": "surrogate of the first run at the nodes",
    "u_nn_<label>": "surrogate of every further run at the nodes",
    "u_fem": "N0 field projected to the nodes: volume-weighted average of the cell values",
    "error_nn": "|u - u_nn| at the nodes (Euclidean norm; error_nn_<label> for further runs)",
    "error_fem": "|u - u_fem| at the nodes (includes the nodal averaging)",
    "u_fem1": "complete-linear Nédélec field projected to the nodes (volume-weighted average)",
    "error_fem1": "|u - u_fem1| at the nodes (includes the nodal averaging)",
}
VTK_CELL_FIELDS = {
    "u_fem": "N0 field at the cell centres (exact evaluation, no averaging)",
    "u_nn": "surrogate at the cell centres (u_nn_<label> for further runs)",
    "error_nn": "|u - u_nn| at the cell centres (error_nn_<label> for further runs)",
    "error_fem": "|u - u_h| at the cell centres",
    "u_fem1": "complete-linear Nédélec field at the cell centres (exact evaluation)",
    "error_fem1": "|u - u_h| of the complete-linear field at the cell centres",
}


def fem_field_name(base: str, order: int) -> str:
    """``u_fem`` / ``error_fem`` for N0 (order 0), ``u_fem1`` / ``error_fem1`` for order 1."""
    return base if order == 0 else f"{base}{order}"


def run_field_name(base: str, index: int, label: str) -> str:
    """``u_nn`` for the first run, ``u_nn_<label>`` (label with / -> _) for the others."""
    return base if index == 0 else f"{base}_{label.replace('/', '_')}"


def write_level_vtu(
    vtk_dir: Path, domain_name: str, level: int, mesh, problem: Any, runs: Sequence[Any],
    labels: Sequence[str], solutions: dict[int, Any] | None = None, reference_solution=None,
    *, batch_size: int | None = None,
) -> str:
    """Write ``<domain>_level<L>.vtu`` with the fields of :data:`VTK_POINT_FIELDS` and
    :data:`VTK_CELL_FIELDS`; ``solutions`` maps FEM order -> solution. Returns the file name
    (relative to ``vtk_dir``)."""
    from surrogate.fem.vtk import n0_at_cell_centres, n0_at_nodes, write_vtu

    nodes = np.ascontiguousarray(mesh.p.T, dtype=float)
    centres = mesh.p[:, mesh.t].mean(axis=1).T
    if getattr(problem, "has_exact", False):
        ref_name = "u_exact"
        u_nodes, u_cells = problem.u(nodes), problem.u(centres)
    else:
        ref_name = "u_reference"
        u_nodes = reference_solution.values_at(nodes, outside="nan")
        u_cells = reference_solution.values_at(centres, outside="nan")
    point_data = {ref_name: u_nodes}
    cell_data = {ref_name: u_cells}
    for index, (label, run) in enumerate(zip(labels, runs, strict=True)):
        nn_nodes = np.asarray(run.predict(problem.inputs(nodes), batch_size=batch_size), float)
        nn_cells = np.asarray(run.predict(problem.inputs(centres), batch_size=batch_size), float)
        point_data[run_field_name("u_nn", index, label)] = nn_nodes
        point_data[run_field_name("error_nn", index, label)] = np.linalg.norm(
            nn_nodes - u_nodes, axis=1)
        cell_data[run_field_name("u_nn", index, label)] = nn_cells
        cell_data[run_field_name("error_nn", index, label)] = np.linalg.norm(
            nn_cells - u_cells, axis=1)
    for order, solution in (solutions or {}).items():  # the polynomial of each cell's element
        fem_nodes = n0_at_nodes(solution.basis, solution.dofs)
        fem_cells = n0_at_cell_centres(solution.basis, solution.dofs)
        u_name, e_name = fem_field_name("u_fem", order), fem_field_name("error_fem", order)
        point_data[u_name], cell_data[u_name] = fem_nodes, fem_cells
        point_data[e_name] = np.linalg.norm(fem_nodes - u_nodes, axis=1)
        cell_data[e_name] = np.linalg.norm(fem_cells - u_cells, axis=1)
    name = f"{domain_name}_level{level}.vtu"
    write_vtu(Path(vtk_dir) / name, mesh, point_data, cell_data)
    return name


def write_collections(vtk_dir: Path, entries: dict[str, list[tuple[int, str]]],
                      labels: Sequence[str], *, has_exact: bool,
                      fem_orders: Sequence[int] = (0,)) -> dict[str, Any]:
    """One ``<domain>.pvd`` per domain (timestep = level); returns the JSON summary of fields
    (``fem_orders``: the FEM orders written, empty without a FEM baseline)."""
    from surrogate.fem.vtk import write_pvd

    collections = {}
    for domain_name, files in entries.items():
        pvd = write_pvd(Path(vtk_dir) / f"{domain_name}.pvd", sorted(files))
        collections[domain_name] = {"pvd": pvd.name, "files": {str(lv): f for lv, f in files}}
    runs = {run_field_name("u_nn", i, label): label for i, label in enumerate(labels)}
    fem = {fem_field_name(base, order) for base in ("u_fem", "error_fem") for order in fem_orders}

    def wanted(name: str) -> bool:
        return "fem" not in name or name in fem

    point = {k: v for k, v in VTK_POINT_FIELDS.items()
             if (k != "u_exact" or has_exact) and (k != "u_reference" or not has_exact)
             and wanted(k)}
    return {"collections": collections, "runs_by_field": runs, "point_data": point,
            "cell_data": {k: v for k, v in VTK_CELL_FIELDS.items() if wanted(k)},
            "timestep": "mesh level"}


__all__ = ["VTK_CELL_FIELDS", "VTK_POINT_FIELDS", "fem_field_name", "run_field_name",
           "write_collections", "write_level_vtu"]
