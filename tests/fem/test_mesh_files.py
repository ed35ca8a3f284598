"""Mesh files as domains: same N0 errors as the built-in meshes, convergence under refinement,
uniform volume sampling, material tags through refinement, and one-line refusals."""

from pathlib import Path

import meshio
import numpy as np
import pytest

from surrogate.core.errors import DataFormatError, InputError
from surrogate.evaluation.static.measure import evaluate_runs
from surrogate.evaluation.static.options import EvaluationOptions
from surrogate.fem.convergence import observed_rate
from surrogate.fem.domains import get_domain, is_mesh_path
from surrogate.fem.file_domain import FileDomain
from surrogate.fem.hcurl.skfem.n0 import best_approximation, hcurl_errors
from surrogate.fem.problems import get_problem
from surrogate.fem.vtk import read_pvd

DATA = Path(__file__).resolve().parents[1] / "data"
CYLINDER = DATA / "gmsh_cylinder.msh"  # Gmsh 4.15, examples/geometry/cylinder.geo, h = 0.25
MAXWELL = get_problem("maxwell")


def _write(path, p, t, fmt=None, **cell_data):
    meshio.write(path, meshio.Mesh(np.asarray(p).T if p.shape[0] == 3 else p,
                                   [("tetra", np.asarray(t))], cell_data=cell_data or None),
                 file_format=fmt)
    return str(path)


def _cube_file(tmp_path, level, name="cube", fmt=None, suffix=".msh"):
    m = get_domain("cube").mesh(level)
    return _write(tmp_path / f"{name}{level}{suffix}", m.p, m.t.T, fmt or "gmsh")


def _l2(mesh):
    return hcurl_errors(best_approximation(mesh, MAXWELL), MAXWELL.u, MAXWELL.curl_u)[0]


def test_value_with_separator_or_suffix_is_a_file_everything_else_a_name():
    assert [is_mesh_path(v) for v in ("cube", "l-prism", "a/b", "b.msh", "x.vtu")] == [
        False, False, True, True, True]
    assert get_domain("cube").name == "cube"
    with pytest.raises(InputError, match="unknown domain 'cubes'.*mesh file"):
        get_domain("cubes")
    with pytest.raises(InputError, match="unknown mesh file suffix '.stl'"):
        get_domain("part.stl")
    with pytest.raises(DataFormatError, match="missing.msh: no such mesh file"):
        get_domain("missing.msh")


def test_builtin_cube_levels_written_by_meshio_give_the_builtin_n0_errors(tmp_path):
    cube = get_domain("cube")
    for level in (1, 2, 3):
        path = _cube_file(tmp_path, level)  # meshio's default: Gmsh 4.1 binary
        file_error, builtin_error = _l2(get_domain(path).mesh(1)), _l2(cube.mesh(level))
        assert abs(file_error - builtin_error) <= 0.01 * builtin_error


@pytest.mark.parametrize(("fmt", "suffix"), [("gmsh22", ".msh"), ("vtu", ".vtu"),
                                             ("vtk", ".vtk"), ("xdmf", ".xdmf"),
                                             ("medit", ".mesh")])
def test_every_format_reads_the_same_tets(tmp_path, fmt, suffix):
    domain = get_domain(_cube_file(tmp_path, 1, fmt=fmt, suffix=suffix))
    assert domain.mesh(1).t.shape == (4, 48) and domain.volume == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(domain.bounds, [[0, 1]] * 3)


def test_uniform_refinement_of_a_file_mesh_converges_at_first_order():
    domain = get_domain(str(CYLINDER))
    errors = [_l2(domain.mesh(level)) for level in (1, 2)]
    rate = observed_rate(errors[0], errors[1], domain.mesh_size(1), domain.mesh_size(2))
    assert rate >= 0.9, (errors, rate)
    assert domain.mesh(2).t.shape[1] == 8 * domain.mesh(1).t.shape[1]
    assert domain.mesh_size(2) == pytest.approx(domain.mesh_size(1) / 2)


def test_gmsh_cylinder_monte_carlo_volume_is_pi_and_samples_are_uniform():
    domain = get_domain(str(CYLINDER))
    assert domain.note and "dropped" in domain.note and "triangle" in domain.note
    rng = np.random.default_rng(0)
    box = domain.bounds
    x = box[:, 0] + (box[:, 1] - box[:, 0]) * rng.random((100_000, 3))
    monte_carlo = domain.contains(x).mean() * np.prod(box[:, 1] - box[:, 0])
    assert abs(monte_carlo - np.pi) < 0.02 * np.pi
    assert abs(domain.volume - np.pi) < 0.01 * np.pi  # inscribed polyhedron, h = 0.25
    s = domain.sample(50_000, rng)
    assert domain.contains(s).all()
    r2 = s[:, 0] ** 2 + s[:, 1] ** 2
    # uniform in the cylinder: E[x3] = 1/2, E[r²] = 1/2 (up to the polyhedral wall)
    assert s[:, 2].mean() == pytest.approx(0.5, abs=0.01)
    assert r2.mean() == pytest.approx(0.5, abs=0.01) and r2.max() <= 1 + 1e-12


def test_sampling_weights_tets_by_volume(tmp_path):
    # two tets sharing a face, volumes 1/6 and 5/6: the split of samples follows 1 : 5
    p = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, -5.0]])
    domain = get_domain(_write(tmp_path / "two.vtu", p, [[0, 1, 2, 3], [0, 2, 1, 4]]))
    s = domain.sample(60_000, np.random.default_rng(1))
    assert np.mean(s[:, 2] < 0) == pytest.approx(5 / 6, abs=0.01)
    assert domain.volume == pytest.approx(1.0)
    assert domain.contains(np.array([[0.1, 0.1, 0.1], [0.1, 0.1, -1.0], [0.6, 0.6, 0.1],
                                     [0.1, 0.1, 0.8 + 1e-9]]), tol=1e-8).tolist() == [
        True, True, False, True]


def test_material_tags_survive_refinement(tmp_path):
    m = get_domain("cube").mesh(1)
    centroid = m.p[:, m.t].mean(axis=1)
    tags = np.where(centroid[0] < 0.5, 3, 8)
    path = _write(tmp_path / "tagged.msh", m.p, m.t.T, "gmsh22",
                  **{"gmsh:physical": [tags], "gmsh:geometrical": [tags]})
    domain = get_domain(path)
    np.testing.assert_array_equal(domain.regions(1), tags)
    for level in (2, 3):
        fine = domain.mesh(level)
        x = fine.p[:, fine.t].mean(axis=1)[0]
        np.testing.assert_array_equal(domain.regions(level), np.where(x < 0.5, 3, 8))
    assert domain.boundary_faces.shape == (3, 48)  # 2 triangles on each cube face, 4×4 faces


@pytest.mark.slow
def test_evaluation_on_a_file_copy_of_the_cube_matches_the_builtin_cube(tmp_path):
    class Offset:  # the exact field plus a constant: error |c|·|Ω|^½
        path, history = Path("runs/c"), []
        dataset = {"problem": "maxwell", "domain": "cylinder",
                   "input_names": list(MAXWELL.in_names), "target_names": list(MAXWELL.out_names)}

        def predict(self, inputs, batch_size=65536):
            return MAXWELL.u(np.asarray(inputs)[:, :3]) + [0.01, 0, 0]

    path = _cube_file(tmp_path, 1, name="part")
    built_in, from_file = (
        evaluate_runs([Offset()], MAXWELL, EvaluationOptions(domains=(d,), levels=levels,
                                                          fem_backends=("skfem",)),
                      vtk_dir=tmp_path / d.replace("/", "_"))
        for d, levels in (("cube", (1,)), (path, (1, 2))))
    same = from_file.records[0]
    assert same["domain"] == path and same["n_cells"] == built_in.records[0]["n_cells"]
    for key in ("inside_fraction", "volume"):
        assert same[key] == pytest.approx(built_in.records[0][key], rel=1e-12)
    assert same["fem"]["l2_error"] == pytest.approx(built_in.records[0]["fem"]["l2_error"],
                                                    rel=0.01)
    for record in from_file.records:  # error of u + c: |c| |Ω|^½ = 0.01 on the unit cube
        assert record["runs"]["c"]["l2_error"] == pytest.approx(0.01, rel=1e-6)
    vtk = tmp_path / path.replace("/", "_")
    assert read_pvd(vtk / "part1.pvd") == [(1.0, "part1_level1.vtu"), (2.0, "part1_level2.vtu")]
    assert len(meshio.read(vtk / "part1_level2.vtu").cells_dict["tetra"]) == 384


def _bad(tmp_path, name, p, t, fmt="gmsh22", suffix=".msh"):
    return _write(tmp_path / f"{name}{suffix}", np.asarray(p, float), np.asarray(t), fmt)


TET = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])


@pytest.mark.parametrize(("case", "match"), [
    ("nan", r"node 1 has non-finite coordinates .*\(used by tetrahedron 0\)"),
    ("duplicate", r"nodes 3 and 4 coincide \(used by tetrahedra 0 and 1\)"),
    ("degenerate", r"tetrahedron 1 is degenerate"),
    ("inverted", r"tetrahedra 0 and 1 overlap"),
    ("disconnected", r"2 disconnected parts: tetrahedron 1 is not joined"),
    ("crowded", r"a face of tetrahedron 0 is shared by 4 tetrahedra"),
    ("index", r"tetrahedron 0 refers to node .* but the file has 4 nodes"),
])
def test_each_malformed_mesh_is_one_line_naming_the_file_and_cell(tmp_path, case, match):
    p, t = TET.copy(), [[0, 1, 2, 3]]
    if case == "nan":
        p[1, 0] = np.nan
    elif case == "duplicate":  # tet 1 uses a copy of node 3: a crack
        p, t = np.vstack([p, p[3], [1, 1, 1]]), [[0, 1, 2, 3], [1, 2, 4, 5]]
    elif case == "degenerate":
        p, t = np.vstack([p, [0.5, 0.5, 0.0]]), [[0, 1, 2, 3], [0, 1, 2, 4]]
    elif case == "inverted":  # the second tet's apex pushed through the shared face
        p, t = np.vstack([p, [0.2, 0.2, 0.5]]), [[0, 1, 2, 3], [1, 2, 3, 4]]
    elif case == "disconnected":
        p, t = np.vstack([p, p + 5]), [[0, 1, 2, 3], [4, 5, 6, 7]]
    elif case == "crowded":
        p = np.vstack([p, [1, 1, 1], [0.9, 0.9, 1], [1.2, 0.8, 1.1]])
        t = [[0, 1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 3, 6]]
    elif case == "index":
        t = [[0, 1, 2, 9]]
    path = _bad(tmp_path, case, p, t, fmt="vtu", suffix=".vtu") if case == "index" else \
        _bad(tmp_path, case, p, t)
    with pytest.raises(DataFormatError, match=match) as info:
        get_domain(path)
    message = str(info.value)
    assert message.startswith(path) and "\n" not in message


def test_non_tet_cells_are_dropped_with_a_note_or_refused(tmp_path):
    tri = [[0, 1, 2], [0, 1, 3]]
    mixed = meshio.Mesh(TET, [("triangle", tri), ("line", [[0, 1]]), ("tetra", [[0, 1, 2, 3]])])
    meshio.write(tmp_path / "mixed.vtu", mixed)
    domain = get_domain(str(tmp_path / "mixed.vtu"))
    assert domain.note.endswith("used 1 tetrahedra; dropped 1 line, 2 triangle cells")
    meshio.write(tmp_path / "flat.vtu", meshio.Mesh(TET, [("triangle", tri)]))
    with pytest.raises(DataFormatError, match=r"flat.vtu: the mesh has no tetrahedra "
                                              r"\(found 2 triangle\)"):
        get_domain(str(tmp_path / "flat.vtu"))
    hexa = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], float)
    meshio.write(tmp_path / "hex.vtu", meshio.Mesh(hexa, [("tetra", [[0, 1, 2, 4]]),
                                                          ("hexahedron", [[0, 1, 3, 2, 4, 5, 7,
                                                                           6]])]))
    with pytest.raises(DataFormatError, match="hex.vtu: cell 1 is a hexahedron; only tetra"):
        get_domain(str(tmp_path / "hex.vtu"))


def test_a_file_domain_is_a_domain():
    domain = get_domain(str(CYLINDER))
    assert isinstance(domain, FileDomain) and domain.stem == "gmsh_cylinder"
    assert domain.name == str(CYLINDER) and get_domain(str(CYLINDER)) is domain  # cached
    with pytest.raises(InputError):
        domain.mesh(0)
    assert domain.sample(0, np.random.default_rng()).shape == (0, 3)
