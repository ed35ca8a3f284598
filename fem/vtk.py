"""VTK output for ParaView: Nédélec (N0) fields to nodes and cells, ``.vtu`` and ``.pvd`` writers.

A lowest-order Nédélec field is only tangentially continuous, so it has no single value at a
mesh node. :func:`n0_at_nodes` exports the **volume-weighted average of the cell-wise values
at each node** (every tet that touches node ``i`` evaluates its own polynomial at ``i``; the
values are averaged with the tets' volumes as weights). This is exact for fields in N0 that
are globally continuous (e.g. constants, ``a + b × x``) and first-order accurate otherwise.
:func:`n0_at_cell_centres` gives the field at the barycentre of each tet (exact, no averaging).

``.vtu`` files are written with meshio; the ``.pvd`` collection is a small XML index built
with ``xml.etree`` so ParaView opens one file and steps through its ``timestep`` values.
Every file is written to a temporary name in the target folder, then renamed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from surrogate.core.atomic_files import atomic_path
from surrogate.core.errors import DataFormatError, InputError
from surrogate.fem.tet_geometry import node_average_matrix

_REFERENCE_VERTICES = np.array(
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
)  # skfem's affine tet map sends reference vertex i to mesh.t[i]


def n0_at_reference_points(basis, dofs: np.ndarray, reference_points: np.ndarray) -> np.ndarray:
    """Values of the N0 field ``dofs`` at reference-tet points in every cell, (n_cells, k, 3).

    Any skfem H(curl) basis works (the complete-linear ``ElementTetCompleteLinear`` with its own
    DOFs too); a complete-linear DOF vector with an N0 basis is an InputError naming the order.

    ``reference_points`` is (k, 3) in the reference tet {x, y, z >= 0, x + y + z <= 1}.
    """
    from skfem import Basis

    ref = np.asarray(reference_points, dtype=float)
    if ref.ndim != 2 or ref.shape[1] != 3:
        raise InputError(f"reference_points must have shape (k, 3), got {ref.shape}")
    dofs = np.asarray(dofs, dtype=float)
    if dofs.shape != (basis.N,):
        from surrogate.fem.hcurl.skfem.complete_linear.element import n0_only_error

        if getattr(basis, "N", None) == basis.mesh.edges.shape[1] and (
                error := n0_only_error(basis, dofs, "this N0 basis (VTK export)")):
            raise error
        raise InputError(f"dofs must have shape ({basis.N},), got {dofs.shape}")
    probe = Basis(basis.mesh, basis.elem, quadrature=(ref.T.copy(), np.ones(len(ref))))
    values = np.asarray(probe.interpolate(dofs))  # (3, n_cells, k)
    return np.moveaxis(values, 0, -1)


def n0_at_cell_centres(basis, dofs: np.ndarray) -> np.ndarray:
    """N0 field at the barycentre of every tet, (n_cells, 3)."""
    return n0_at_reference_points(basis, dofs, np.full((1, 3), 0.25))[:, 0, :]


def n0_at_nodes(basis, dofs: np.ndarray) -> np.ndarray:
    """N0 field projected to mesh nodes, (n_nodes, 3): volume-weighted average of cell values.

    u(node i) = Σ_{T ∋ i} |T| u_T(x_i) / Σ_{T ∋ i} |T|, with u_T the field's polynomial on T
    (:func:`~surrogate.fem.tet_geometry.node_average_matrix`).
    """
    at_vertices = n0_at_reference_points(basis, dofs, _REFERENCE_VERTICES)  # (n_cells, 4, 3)
    return node_average_matrix(basis.mesh) @ at_vertices.reshape(-1, 3)


def _checked_array(name: str, values: np.ndarray, n: int, where: str) -> np.ndarray:
    """Float64 array of shape (n,) or (n, 3) (vectors always 3 components)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 2 and arr.shape[1] == 2:
        arr = np.column_stack([arr, np.zeros(len(arr))])
    if not (arr.shape == (n,) or arr.shape == (n, 3)):
        raise InputError(f"{where} {name!r} must have shape ({n},) or ({n}, 3), "
                         f"got {arr.shape}")
    return np.ascontiguousarray(arr)


def write_vtu(
    path: str | Path,
    mesh,
    point_data: Mapping[str, np.ndarray] | None = None,
    cell_data: Mapping[str, np.ndarray] | None = None,
) -> Path:
    """Write a tetrahedral mesh with point data (n_nodes,[3]) and cell data (n_cells,[3]).

    ``mesh`` is a skfem MeshTet (``p`` (3, n_nodes), ``t`` (4, n_cells)). Written atomically.
    """
    import meshio

    path = Path(path)
    if path.suffix != ".vtu":
        raise InputError(f"VTK unstructured-grid files end in .vtu, got {path.name!r}")
    n_nodes, n_cells = mesh.p.shape[1], mesh.t.shape[1]
    pdata = {k: _checked_array(k, v, n_nodes, "point data") for k, v in (point_data or {}).items()}
    cdata = {k: [_checked_array(k, v, n_cells, "cell data")] for k, v in (cell_data or {}).items()}
    out = meshio.Mesh(
        points=np.ascontiguousarray(mesh.p.T, dtype=float),
        cells=[("tetra", np.ascontiguousarray(mesh.t.T, dtype=np.int64))],
        point_data=pdata,
        cell_data=cdata,
    )
    with atomic_path(path, ".vtu") as tmp:
        meshio.write(tmp, out, file_format="vtu")
    return path


def write_points_vtu(path: str | Path, points: np.ndarray,
                     point_data: Mapping[str, np.ndarray] | None = None) -> Path:
    """Write a point cloud (one VTK vertex cell per point) with point data (n,[3]), atomically.

    ``points`` is (n, 3), e.g. probe locations; vectors always have 3 components.
    """
    import meshio

    path = Path(path)
    if path.suffix != ".vtu":
        raise InputError(f"VTK unstructured-grid files end in .vtu, got {path.name!r}")
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[1] != 3:
        raise InputError(f"points must have shape (n, 3), got {points.shape}")
    n = len(points)
    pdata = {k: _checked_array(k, v, n, "point data") for k, v in (point_data or {}).items()}
    out = meshio.Mesh(points=np.ascontiguousarray(points),
                      cells=[("vertex", np.arange(n, dtype=np.int64)[:, None])],
                      point_data=pdata)
    with atomic_path(path, ".vtu") as tmp:
        meshio.write(tmp, out, file_format="vtu")
    return path


def write_pvd(path: str | Path, datasets: Sequence[tuple[float, str]]) -> Path:
    """Write a ParaView collection: one ``<DataSet timestep=t file=f>`` per (t, f), atomically.

    ``file`` names are written as given (use paths relative to the .pvd's folder).
    """
    path = Path(path)
    if path.suffix != ".pvd":
        raise InputError(f"ParaView collection files end in .pvd, got {path.name!r}")
    root = ET.Element(
        "VTKFile", {"type": "Collection", "version": "0.1", "byte_order": "LittleEndian"}
    )
    collection = ET.SubElement(root, "Collection")
    for timestep, file in datasets:
        ET.SubElement(collection, "DataSet", {"timestep": f"{float(timestep):g}", "group": "",
                                              "part": "0", "file": str(file)})
    ET.indent(root)
    with atomic_path(path, ".pvd") as tmp:
        ET.ElementTree(root).write(tmp, encoding="utf-8", xml_declaration=True)
    return path


def read_pvd(path: str | Path) -> list[tuple[float, str]]:
    """The (timestep, file) entries of a ``.pvd`` collection, in file order."""
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise DataFormatError(f"cannot read ParaView collection {path}: {exc}") from None
    if root.tag != "VTKFile" or root.get("type") != "Collection":
        raise DataFormatError(f"{path} is not a ParaView collection (VTKFile type=Collection)")
    return [(float(d.get("timestep", "nan")), d.get("file", ""))
            for d in root.iter("DataSet")]


__all__ = [
    "n0_at_reference_points", "n0_at_cell_centres", "n0_at_nodes",
    "write_vtu", "write_points_vtu", "write_pvd", "read_pvd",
]
