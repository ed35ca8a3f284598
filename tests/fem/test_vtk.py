"""VTK export: N0 fields to nodes/cells, .vtu round trips through meshio and pyvista, .pvd."""

import meshio
import numpy as np
import pytest
from skfem import Basis, ElementTetN0, MeshTet

from surrogate.core.errors import InputError
from surrogate.fem.vtk import (
    n0_at_cell_centres,
    n0_at_nodes,
    read_pvd,
    write_pvd,
    write_vtu,
)

A = np.array([0.3, -1.0, 2.0])
C = np.array([0.5, 0.2, -0.7])


def _rigid_field(x):
    """a + c × x, shape (3, ...): lies in N0, so its projection is exact."""
    return A.reshape(3, *([1] * (x.ndim - 1))) + np.cross(C, x, axis=0)


def _n0(level: int, fun):
    mesh = MeshTet().refined(level)
    basis = Basis(mesh, ElementTetN0())
    return mesh, basis, basis.project(fun)


def test_field_in_n0_is_exact_at_nodes_and_cell_centres():
    mesh, basis, dofs = _n0(2, _rigid_field)
    nodes = n0_at_nodes(basis, dofs)
    centres = mesh.p[:, mesh.t].mean(axis=1)
    assert nodes.shape == (mesh.p.shape[1], 3)
    np.testing.assert_allclose(nodes, _rigid_field(mesh.p).T, atol=1e-12)
    np.testing.assert_allclose(n0_at_cell_centres(basis, dofs), _rigid_field(centres).T,
                               atol=1e-12)


def test_nodal_average_converges_first_order_for_a_smooth_field():
    def smooth(x):
        return np.stack([np.sin(x[1]) * x[2], np.cos(x[0]), x[0] * x[1]])

    errors = []
    for level in (2, 3):
        mesh, basis, dofs = _n0(level, smooth)
        errors.append(np.abs(n0_at_nodes(basis, dofs) - smooth(mesh.p).T).max())
    rate = np.log2(errors[0] / errors[1])
    assert rate > 0.8, errors


def test_vtu_round_trip_with_meshio_and_pyvista(tmp_path):
    import pyvista as pv

    mesh, basis, dofs = _n0(1, _rigid_field)
    rng = np.random.default_rng(0)
    n_nodes, n_cells = mesh.p.shape[1], mesh.t.shape[1]
    point_data = {"u_exact": _rigid_field(mesh.p).T, "u_fem": n0_at_nodes(basis, dofs),
                  "error_fem": rng.random(n_nodes)}
    cell_data = {"u_fem": n0_at_cell_centres(basis, dofs), "error_fem": rng.random(n_cells)}
    path = write_vtu(tmp_path / "cube_level1.vtu", mesh, point_data, cell_data)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cube_level1.vtu"]  # no temp left

    back = meshio.read(path)
    np.testing.assert_array_equal(back.points, mesh.p.T)
    np.testing.assert_array_equal(back.cells_dict["tetra"], mesh.t.T)
    assert set(back.point_data) == set(point_data)
    assert set(back.cell_data) == set(cell_data)
    for name, values in point_data.items():
        assert back.point_data[name].shape == values.shape
        np.testing.assert_array_equal(back.point_data[name], values)
    for name, values in cell_data.items():
        np.testing.assert_array_equal(back.cell_data[name][0], values)

    grid = pv.read(path)
    assert grid.n_points == n_nodes and grid.n_cells == n_cells
    assert set(grid.point_data.keys()) == set(point_data)
    assert set(grid.cell_data.keys()) == set(cell_data)
    for name, values in point_data.items():
        np.testing.assert_array_equal(np.asarray(grid.point_data[name]), values)
    for name, values in cell_data.items():
        np.testing.assert_array_equal(np.asarray(grid.cell_data[name]), values)


def test_vtu_pads_2d_vectors_and_rejects_wrong_shapes(tmp_path):
    mesh = MeshTet()
    n = mesh.p.shape[1]
    path = write_vtu(tmp_path / "a.vtu", mesh, {"v": np.ones((n, 2))})
    np.testing.assert_array_equal(meshio.read(path).point_data["v"][:, 2], 0.0)
    with pytest.raises(InputError, match="point data 'w'"):
        write_vtu(tmp_path / "b.vtu", mesh, {"w": np.ones((n + 1, 3))})
    with pytest.raises(InputError, match=".vtu"):
        write_vtu(tmp_path / "c.vtk", mesh)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.vtu"]


def test_pvd_lists_every_level_and_pyvista_steps_through_them(tmp_path):
    import pyvista as pv

    files = []
    for level in (1, 2, 3):
        mesh = MeshTet().refined(level - 1)
        name = f"cube_level{level}.vtu"
        write_vtu(tmp_path / name, mesh, {"level": np.full(mesh.p.shape[1], float(level))})
        files.append((level, name))
    pvd = write_pvd(tmp_path / "cube.pvd", files)
    assert read_pvd(pvd) == [(1.0, "cube_level1.vtu"), (2.0, "cube_level2.vtu"),
                             (3.0, "cube_level3.vtu")]
    reader = pv.get_reader(str(pvd))
    assert list(reader.time_values) == [1.0, 2.0, 3.0]
    reader.set_active_time_value(3.0)
    block = reader.read()[0]
    assert block.n_cells == MeshTet().refined(2).t.shape[1]
    np.testing.assert_array_equal(np.asarray(block.point_data["level"]), 3.0)
