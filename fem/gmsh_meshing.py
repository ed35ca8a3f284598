"""Tetrahedral meshes of Gmsh ``.geo`` shapes through the optional ``gmsh`` package.

``pip install 'surrogate[meshing]'`` installs it (the PyPI wheel ships Gmsh's own library).
The mesh is written as Gmsh 4.1 ``.msh`` to a temporary name and renamed when complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from surrogate.core.atomic_files import atomic_path
from surrogate.core.errors import InputError
from surrogate.core.typed_config import TypedConfig, setting

EXTRA = "pip install 'surrogate[meshing]'"


@dataclass(frozen=True)
class MeshingOptions(TypedConfig):
    """How ``surrogate mesh generate`` meshes a shape (the .geo's own settings otherwise)."""

    config_name: ClassVar[str] = "meshing options"

    h: float | None = setting(None, doc="Largest element size (Gmsh's Mesh.MeshSizeMax).",
                              gt=0.0, shown="the .geo's")


def import_gmsh() -> Any:
    """The ``gmsh`` module, or InputError naming the extra that installs it."""
    try:
        import gmsh
    except (ImportError, OSError) as exc:  # OSError: the wheel's shared library failed
        raise InputError(f"meshing needs the gmsh package ({type(exc).__name__}: {exc}); "
                         f"install it with: {EXTRA}") from None
    return gmsh


def generate_mesh(geo: str | Path, out: str | Path, h: float | None = None) -> dict[str, Any]:
    """Mesh the 3-D shape of ``geo`` with tets (longest edges about ``h``) into ``out``.

    Returns {"nodes", "tetrahedra", "h", "gmsh"} counts; InputError on a shape Gmsh rejects.
    """
    geo, out = Path(geo), Path(out)
    if not geo.is_file():
        raise InputError(f"{geo}: no such geometry file")
    h = MeshingOptions(h=h).h
    if out.suffix.lower() != ".msh":
        raise InputError(f"{out}: the output must be a .msh file")
    gmsh = import_gmsh()
    gmsh.initialize(["surrogate"], readConfigFiles=False, interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        try:
            gmsh.open(str(geo))
            if h is not None:  # after open: the .geo's own size options are overridden
                gmsh.option.setNumber("Mesh.MeshSizeMax", float(h))
            gmsh.model.mesh.generate(3)
        except Exception as exc:  # gmsh raises a bare Exception carrying its last error
            raise InputError(f"{geo}: gmsh failed ({str(exc).splitlines()[0][:160]})") from None
        types, tags, _ = gmsh.model.mesh.getElements(3)
        n_tets = sum(len(t) for kind, t in zip(types, tags, strict=True) if kind == 4)
        if n_tets == 0:
            raise InputError(f"{geo}: no tetrahedra were generated (does it define a volume?)")
        n_nodes = len(gmsh.model.mesh.getNodes()[0])
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        with atomic_path(out, suffix=".msh") as tmp:
            gmsh.write(str(tmp))
        version = gmsh.__version__
    finally:
        gmsh.finalize()
    return {"geometry": str(geo), "mesh": str(out), "nodes": n_nodes, "tetrahedra": n_tets,
            "h": h, "gmsh": version}


__all__ = ["EXTRA", "generate_mesh", "import_gmsh"]
