"""Fuzzing the mesh-file reader (get_domain on a path: meshio, validation, FileDomain).

Every truncated, bit-flipped, overwritten or crafted file must either give a valid domain or
end in ONE-line DataFormatError/InputError naming the file; never another exception, a hang
or a memory blow-up (a declared size far beyond the file's bytes hits the reader's memory
cap). One valid 48-tet cube per format is written per module; each case mutates a copy.
"""

from __future__ import annotations

import re

import meshio
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from surrogate.core.errors import DataFormatError, InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.file_domain import FileDomain

from ..fuzz_support import fuzz_settings, guarded_case

# name -> (suffix, meshio format, binary)
FORMATS = {"gmsh41-binary": (".msh", "gmsh", True), "gmsh41-ascii": (".msh", "gmsh", False),
           "gmsh22-ascii": (".msh", "gmsh22", False), "gmsh22-binary": (".msh", "gmsh22", True),
           "vtu": (".vtu", "vtu", True), "vtk-ascii": (".vtk", "vtk", False),
           "medit": (".mesh", "medit", False)}


def _write(path, points, cells, fmt, binary):
    mesh = meshio.Mesh(points, cells)
    kwargs = {} if fmt in ("vtu", "medit") else {"binary": binary}
    meshio.write(path, mesh, file_format=fmt, **kwargs)


class BaseFiles(tuple):
    """(files by format, folder) with a short repr for hypothesis reports."""

    def __repr__(self) -> str:
        return f"BaseFiles({self[1]})"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """Valid cube meshes (bytes) per format, and a work folder."""
    folder = tmp_path_factory.mktemp("mesh_fuzz")
    m = get_domain("cube").mesh(1)
    files = {}
    for name, (suffix, fmt, binary) in FORMATS.items():
        path = folder / f"base-{name}{suffix}"
        _write(path, m.p.T, [("tetra", m.t.T)], fmt, binary)
        assert get_domain(str(path)).mesh(1).t.shape == (4, 48)
        files[name] = path.read_bytes()
    return BaseFiles((files, folder))


def check_reader(path) -> str:
    """get_domain(path): "ok" (a usable domain) or "error" (one line naming the file)."""
    with guarded_case():
        try:
            domain = get_domain(str(path))
        except (DataFormatError, InputError) as exc:
            message = str(exc)
            assert message.startswith(str(path)) and "\n" not in message, message
            return "error"
    assert isinstance(domain, FileDomain)
    mesh = domain.mesh(1)
    assert np.isfinite(mesh.p).all() and mesh.t.shape[1] > 0 and domain.volume > 0
    return "ok"


@st.composite
def byte_damage(draw, size: int):
    """A truncation length, bit flips, an overwritten run or a zeroed run."""
    how = draw(st.sampled_from(["truncate", "flip", "overwrite", "zero-run"]))
    if how == "truncate":
        return how, draw(st.integers(0, size - 1))
    if how == "flip":
        return how, draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, 7)),
                                  min_size=1, max_size=8))
    start, length = draw(st.integers(0, size - 1)), draw(st.integers(1, 64))
    chunk = (draw(st.binary(min_size=length, max_size=length)) if how == "overwrite"
             else bytes(length))
    return how, (start, chunk)


def apply_damage(original: bytes, damage) -> bytes:
    how, arg = damage
    if how == "truncate":
        return original[:arg]
    data = bytearray(original)
    if how == "flip":
        for offset, bit in arg:
            data[offset] ^= 1 << bit
    else:
        start, chunk = arg
        data[start:start + len(chunk)] = chunk[:len(data) - start]
    return bytes(data)


@fuzz_settings(max_examples=300)
@given(name=st.sampled_from(sorted(FORMATS)), data=st.data())
@pytest.mark.slow
def test_truncated_and_bit_flipped_files_fail_cleanly(base, name, data):
    files, folder = base
    damage = data.draw(byte_damage(len(files[name])))
    path = folder / f"damaged{FORMATS[name][0]}"
    path.write_bytes(apply_damage(files[name], damage))
    check_reader(path)


ASCII = sorted(n for n, (_, _, binary) in FORMATS.items() if not binary)
HUGE = ["1000000000000", "9223372036854775807", "18446744073709551615", "-1", "1e300", "nan",
        "4294967296", "99999999"]


@fuzz_settings(max_examples=120)
@given(name=st.sampled_from(ASCII), which=st.integers(0, 10**6), value=st.sampled_from(HUGE))
def test_huge_or_absurd_declared_sizes_fail_cleanly(base, name, which, value):
    """Any integer token of an ASCII file (counts, tags, indices) replaced by a huge value."""
    files, folder = base
    text = files[name].decode()
    tokens = list(re.finditer(r"(?<![\w.\-])\d+(?![\w.])", text))
    token = tokens[which % len(tokens)]
    path = folder / f"huge{FORMATS[name][0]}"
    path.write_text(text[:token.start()] + value + text[token.end():])
    check_reader(path)


CUBE = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], dtype=float)
WRONG_CELLS = {"triangle": [[0, 1, 2]], "line": [[0, 1]], "vertex": [[0]],
               "quad": [[0, 1, 3, 2]], "hexahedron": [[0, 1, 3, 2, 4, 5, 7, 6]],
               "wedge": [[0, 1, 2, 4, 5, 6]], "pyramid": [[0, 1, 3, 2, 4]]}


@pytest.mark.parametrize("fmt", ["gmsh", "vtu", "vtk"])
@pytest.mark.parametrize("cell", sorted(WRONG_CELLS))
def test_wrong_cell_types_are_refused_in_one_line(tmp_path, fmt, cell):
    suffix = {"gmsh": ".msh", "vtu": ".vtu", "vtk": ".vtk"}[fmt]
    path = tmp_path / f"{cell}{suffix}"
    meshio.write(path, meshio.Mesh(CUBE, [(cell, WRONG_CELLS[cell])]), file_format=fmt)
    assert check_reader(path) == "error"


@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_coordinates_are_refused_in_one_line(base, tmp_path, name, bad):
    suffix, fmt, binary = FORMATS[name]
    m = get_domain("cube").mesh(1)
    points = m.p.T.copy()
    points[5, 1] = bad
    path = tmp_path / f"nan{suffix}"
    _write(path, points, [("tetra", m.t.T)], fmt, binary)
    assert check_reader(path) == "error"
