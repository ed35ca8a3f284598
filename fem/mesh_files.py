"""Read a tetrahedral mesh file with meshio: nodes, tets, material tags, dropped cells.

Gmsh 2.2 / 4.1 ``.msh``, ``.vtu`` / ``.vtk``, ``.xdmf`` and Medit ``.mesh`` are accepted.
Tetrahedra (``tetra``; ``tetra10`` by its four corners) are kept; 0-D to 2-D cells (Gmsh's
boundary triangles, lines, points) are dropped with a note; other volume cells (hexahedra,
wedges, pyramids) are an error. Material tags come from the first integer cell data of
``TAG_KEYS`` present on every tet block. Every failure is ONE line naming the file: meshio's
own exceptions become DataFormatError, and a file that declares sizes far beyond its bytes
hits a memory cap while it is parsed (MemoryError, not a machine-wide allocation).
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from surrogate.core.errors import DataFormatError, InputError

FORMATS = {".msh": "gmsh", ".vtu": "vtu", ".vtk": "vtk", ".xdmf": "xdmf", ".xmf": "xdmf",
           ".mesh": "medit"}
"""File suffix -> meshio format name."""

TAG_KEYS = ("gmsh:physical", "medit:ref", "CellEntityIds", "cell_tags", "material",
            "subdomains", "gmsh:geometrical")
"""Cell-data names read as material tags, the first present wins."""

LOWER_DIMENSIONAL = {"vertex", "line", "line3", "triangle", "triangle6", "quad", "quad8",
                     "quad9", "polygon"}
TET_CORNERS = {"tetra": 4, "tetra10": 4}
MEMORY_BASE_BYTES = 256 << 20
MEMORY_PER_FILE_BYTE = 200
"""Address space a parse may add: 256 MiB plus 200 bytes per byte of the file."""


@dataclass(frozen=True)
class MeshFile:
    """A mesh file's nodes (n, 3), tets (m, 4) and optional tags (m,), before validation."""

    path: str
    points: np.ndarray
    tets: np.ndarray
    tags: np.ndarray | None
    dropped: dict[str, int] = field(default_factory=dict)

    def note(self) -> str | None:
        """One line on the cells that were not used (None when every cell is a tet)."""
        if not self.dropped:
            return None
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(self.dropped.items()))
        return f"{self.path}: used {len(self.tets)} tetrahedra; dropped {parts} cells"


def mesh_format(path: str | Path) -> str:
    """meshio's format name for ``path`` by its suffix (InputError for unknown suffixes)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"{path}: unknown mesh file suffix {suffix!r}; use one of: "
                         f"{', '.join(FORMATS)}")
    return FORMATS[suffix]


@contextlib.contextmanager
def _memory_cap(extra_bytes: int):
    """Cap this process's address space at its current size plus ``extra_bytes`` (Linux)."""
    try:
        import resource

        with open("/proc/self/statm") as fh:
            current = int(fh.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = current + extra_bytes
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, OSError, ValueError):
        yield  # no cap where the platform cannot set one
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:120]}" if text else type(exc).__name__


def _read_meshio(path: Path, fmt: str):
    """Read ``path`` under a memory cap, console output swallowed; DataFormatError on failure.

    A ``.msh`` is Gmsh's or else ANSYS's (meshio writes ANSYS for ``.msh`` by default).
    """
    from meshio._helpers import reader_map  # meshio.read calls sys.exit on some failures

    sink = io.StringIO()
    first_error = None
    for name in ("gmsh", "ansys") if fmt == "gmsh" else (fmt,):
        try:
            size = path.stat().st_size
            with (_memory_cap(MEMORY_BASE_BYTES + MEMORY_PER_FILE_BYTE * size),
                  contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink)):
                return reader_map[name](str(path))
        except MemoryError:
            raise DataFormatError(f"{path}: declares sizes far beyond its data (corrupt "
                                  f"{fmt} file)") from None
        except RecursionError:
            first_error = first_error or "nested too deeply"
        except (Exception, SystemExit) as exc:  # a third-party parser's failure = a bad file
            first_error = first_error or _first_line(exc)
    raise DataFormatError(f"{path}: not a readable {fmt} mesh ({first_error})")


def _tags(mesh, blocks: list[int]) -> np.ndarray | None:
    """Integer material tags (m,) of the tet blocks from the first usable TAG_KEYS entry."""
    for key in TAG_KEYS:
        data = mesh.cell_data.get(key)
        if data is None:
            continue
        try:
            parts = [np.asarray(data[b]).reshape(-1) for b in blocks]
        except (IndexError, ValueError):
            continue
        values = np.concatenate(parts) if parts else np.zeros(0)
        if values.dtype.kind in "iu" or (values.dtype.kind == "f" and np.isfinite(values).all()
                                         and np.all(values == np.round(values))):
            return values.astype(np.int64)
    return None


def read_mesh_file(path: str | Path) -> MeshFile:
    """Nodes, tets and tags of the mesh file ``path`` (DataFormatError if it is unusable)."""
    fmt = mesh_format(path)
    file = Path(path)
    if not file.is_file():
        raise DataFormatError(f"{path}: no such mesh file")
    mesh = _read_meshio(file, fmt)
    points = np.asarray(mesh.points)
    if points.ndim != 2 or points.shape[1] != 3 or points.dtype.kind not in "fiu":
        raise DataFormatError(f"{path}: nodes must be 3-D coordinates, got shape "
                              f"{points.shape}")
    tets, blocks, dropped, first = [], [], {}, 0
    for k, block in enumerate(mesh.cells):
        data = np.asarray(block.data)
        if block.type in TET_CORNERS:
            if data.ndim != 2 or data.shape[1] < 4 or data.dtype.kind not in "iu":
                raise DataFormatError(f"{path}: {block.type} block {k} has connectivity of "
                                      f"shape {data.shape}")
            tets.append(data[:, :4].astype(np.int64))
            blocks.append(k)
        elif block.type in LOWER_DIMENSIONAL:
            dropped[block.type] = dropped.get(block.type, 0) + len(data)
        else:
            raise DataFormatError(f"{path}: cell {first} is a {block.type}; only tetrahedra "
                                  "are supported (remesh with tets)")
        first += len(data)
    if not tets:
        found = f" (found {', '.join(f'{n} {t}' for t, n in dropped.items())})" if dropped else ""
        raise DataFormatError(f"{path}: the mesh has no tetrahedra{found}")
    return MeshFile(str(path), points.astype(np.float64), np.concatenate(tets),
                    _tags(mesh, blocks), dropped)


__all__ = ["FORMATS", "TAG_KEYS", "MeshFile", "mesh_format", "read_mesh_file"]
