"""Tests for fem/domains.py and fem/meshes.py: sampling, membership, volumes, mesh conformity."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.domains import domain_names, get_domain
from surrogate.fem.tet_geometry import tet_signed_volumes

NAMES = ["cylinder", "cube", "ball", "l-prism", "shell"]
CURVED = {"cylinder", "ball", "shell"}


def _r(x):
    return np.hypot(x[:, 0], x[:, 1])


# Pieces of each boundary as residual functions of points (n, 3): zero on the piece.
SURFACES = {
    "cylinder": [lambda x: _r(x) - 1, lambda x: x[:, 2], lambda x: x[:, 2] - 1],
    "shell": [lambda x: _r(x) - 0.5, lambda x: _r(x) - 1.5,
              lambda x: x[:, 2], lambda x: x[:, 2] - 1],
    "ball": [lambda x: np.linalg.norm(x - [0, 0, 0.5], axis=1) - 1],
    "cube": [lambda x, i=i, c=c: x[:, i] - c for i in range(3) for c in (0, 1)],
    "l-prism": [lambda x, i=i, c=c: x[:, i] - c for i in range(3) for c in (-1, 0, 1)],
}


def _faces(t):
    """Sorted triangular faces (4 m, 3) of tets t (4, m), and the opposite vertex of each."""
    local = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])
    faces = np.concatenate([t[f].T for f in local])
    opposite = np.concatenate([t[i] for i in range(4)])
    return np.sort(faces, axis=1), opposite


def _boundary_faces(mesh):
    """Faces of exactly one tet (k, 3), their outward unit normals (k, 3); asserts ≤ 2 per face."""
    faces, opposite = _faces(mesh.t)
    _, index, counts = np.unique(faces, axis=0, return_index=True, return_counts=True)
    assert counts.max() <= 2, "a triangular face is shared by more than two tets"
    once = index[counts == 1]
    f, d = faces[once], opposite[once]
    p = mesh.p.T
    n = np.cross(p[f[:, 1]] - p[f[:, 0]], p[f[:, 2]] - p[f[:, 0]])
    n *= -np.sign(np.einsum("ij,ij->i", n, p[d] - p[f[:, 0]]))[:, None]
    return f, n / np.linalg.norm(n, axis=1, keepdims=True), np.linalg.norm(n, axis=1)


def test_registry_names_and_unknown_name():
    assert domain_names() == NAMES
    with pytest.raises(InputError, match="cylinder, cube, ball, l-prism, shell"):
        get_domain("sphere")


@pytest.mark.parametrize("level", [-1, 1.5, "2", True, None])
def test_bad_levels_raise(level):
    d = get_domain("cube")
    with pytest.raises(InputError, match="level"):
        d.mesh(level)
    with pytest.raises(InputError, match="level"):
        d.mesh_size(level)


def test_boxes_alone_have_a_level_0_of_one_cell_per_unit():
    cube = get_domain("cube").mesh(0)
    assert cube.t.shape[1] == 6 and cube.p.shape[1] == 8
    assert tet_signed_volumes(cube.p, cube.t).sum() == pytest.approx(1.0, rel=1e-14)
    assert get_domain("cube").mesh_size(0) == 1.0
    for name in ("cylinder", "ball", "l-prism", "shell"):
        with pytest.raises(InputError, match="integer >= 1, got 0"):
            get_domain(name).mesh(0)


def test_bad_sample_and_point_inputs_raise():
    d = get_domain("cylinder")
    with pytest.raises(InputError):
        d.sample(-1, np.random.default_rng(0))
    with pytest.raises(InputError):
        d.sample(10, 0)
    with pytest.raises(InputError, match=r"\(N, 3\)"):
        d.contains(np.zeros((4, 2)))
    with pytest.raises(InputError, match="finite"):
        d.contains(np.array([[0.0, np.nan, 0.5]]))
    assert d.sample(0, np.random.default_rng(0)).shape == (0, 3)


def test_contains_on_known_points():
    x = np.array([[0, 0, 0.5], [0.99, 0, 0.5], [1.01, 0, 0.5], [0, 0, 1.5], [-0.5, 0.5, 0.5],
                  [0.5, 0.5, 0.5], [1.2, 0, 0.2], [0, 0, 1.45], [0, 0, -0.6]], dtype=float)
    expected = {
        "cylinder": [1, 1, 0, 0, 1, 1, 0, 0, 0],
        "cube": [1, 1, 0, 0, 0, 1, 0, 0, 0],
        "ball": [1, 1, 0, 1, 1, 1, 0, 1, 0],
        "l-prism": [1, 1, 0, 0, 1, 0, 0, 0, 0],
        "shell": [0, 1, 1, 0, 1, 1, 1, 0, 0],
    }
    for name, want in expected.items():
        assert get_domain(name).contains(x).tolist() == [bool(w) for w in want], name


@pytest.mark.parametrize("name", NAMES)
def test_samples_inside_and_volume_fraction_matches(name):
    d = get_domain(name)
    rng = np.random.default_rng(1)
    samples = d.sample(20_000, rng)
    assert samples.shape == (20_000, 3) and d.contains(samples).all()
    lo, hi = d.bounds[:, 0], d.bounds[:, 1]
    box = lo + (hi - lo) * rng.random((400_000, 3))
    inside = d.contains(box)
    fraction = d.volume / np.prod(hi - lo)
    assert inside.mean() == pytest.approx(fraction, rel=0.02)
    # uniform in volume: first and second moments agree with rejection sampling (≈ 6 sigma)
    ref = box[inside]
    assert np.abs(samples.mean(0) - ref.mean(0)).max() < 0.03
    assert np.abs((samples**2).mean(0) - (ref**2).mean(0)).max() < 0.04


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_mesh_is_valid_conforming_and_fits_the_boundary(name, level):
    d = get_domain(name)
    m = d.mesh(level)
    p = m.p.T
    vol = tet_signed_volumes(m.p, m.t)
    assert vol.min() > 0
    assert np.array_equal(np.unique(m.t), np.arange(len(p))), "unused nodes"
    assert len(np.unique(np.round(p, 12), axis=0)) == len(p), "duplicate nodes"
    assert d.contains(p, tol=1e-12).all()

    faces, normal, twice_area = _boundary_faces(m)
    # the boundary surface encloses exactly the tets (no overlaps): divergence theorem
    enclosed = np.sum(np.einsum("ij,ij->i", p[faces[:, 0]], normal) * twice_area) / 6
    assert enclosed == pytest.approx(vol.sum(), rel=1e-12)
    # every boundary face lies on one piece of the true surface, with the domain behind it
    residual = np.stack([np.abs(s(p[faces.reshape(-1)])).reshape(-1, 3).max(1)
                         for s in SURFACES[name]])
    assert residual.min(axis=0).max() < 1e-12
    edges = np.linalg.norm(m.p[:, m.edges[1]] - m.p[:, m.edges[0]], axis=0)
    centre = p[faces].mean(axis=1)
    sagitta = edges.max() ** 2 if name in CURVED else 0.0  # chords of a concave piece stick out
    assert d.contains(centre - 1e-7 * normal, tol=sagitta).all()
    if name not in CURVED:
        assert not d.contains(centre + 1e-7 * normal, tol=0).any()

    h = d.mesh_size(level)
    assert h == pytest.approx(2 * d.mesh_size(level + 1))
    assert h <= edges.max() < 2 * h


@pytest.mark.parametrize("name", ["cube", "l-prism"])
def test_polyhedral_mesh_volume_is_exact(name):
    d = get_domain(name)
    for level in (1, 2, 3):
        m = d.mesh(level)
        assert tet_signed_volumes(m.p, m.t).sum() == pytest.approx(d.volume, rel=1e-13)


@pytest.mark.parametrize("name", ["cylinder", "shell"])
def test_cylinder_mesh_volume_is_its_inscribed_polygon(name):
    d = get_domain(name)
    for level in (1, 2, 3):
        m = d.mesh(level)
        r, bottom = np.hypot(m.p[0], m.p[1]), m.p[2] == 0
        polygon = 0.0
        for radius, sign in ((d.r_outer, 1.0), (d.r_inner, -1.0)):
            n = np.count_nonzero(bottom & np.isclose(r, radius, atol=1e-12))
            polygon += sign * 0.5 * n * radius**2 * np.sin(2 * np.pi / n) if n else 0.0
        assert tet_signed_volumes(m.p, m.t).sum() == pytest.approx(polygon, rel=1e-12)


@pytest.mark.parametrize("name", sorted(CURVED))
def test_curved_mesh_volume_converges(name):
    d = get_domain(name)
    errors = [abs(tet_signed_volumes(m.p, m.t).sum() - d.volume)
              for m in (d.mesh(level) for level in (2, 3, 4))]
    assert errors[-1] / d.volume < 1e-2
    if name != "shell":  # the shell's inner and outer chord errors cancel irregularly
        rates = np.log2(np.array(errors[:-1]) / errors[1:])
        assert rates.min() > 1.8, rates


def test_mesh_sizes_match_the_contract():
    cube = get_domain("cube")
    assert [cube.mesh(level).t.shape[1] for level in (1, 2, 3)] == [48, 384, 3072]
    assert cube.mesh_size(5) == 1 / 32
    for name in ("cylinder", "ball", "l-prism"):
        assert get_domain(name).mesh(4).t.shape[1] <= 100_000
        assert 40 <= get_domain(name).mesh(1).t.shape[1] <= 1000


@pytest.mark.slow
def test_cube_level_5_has_the_benchmark_size():
    m = get_domain("cube").mesh(5)
    assert m.t.shape[1] == 196_608
    assert m.edges.shape[1] == 238_688  # N0 DOFs
