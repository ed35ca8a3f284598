"""``surrogate mesh generate|check``: make a tet mesh from a .geo shape, check a mesh file
(``generate``'s options: :class:`~surrogate.fem.gmsh_meshing.MeshingOptions`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import console, progress_display, user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.core.json_files import json_text

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]


def meshing_group() -> OptionGroup:
    """The meshing options: the fields of MeshingOptions."""
    from surrogate.fem.gmsh_meshing import MeshingOptions

    return OptionGroup("meshing", {"meshing": MeshingOptions})


def generate(
    geo: Annotated[Path, typer.Argument(help="Gmsh geometry file (.geo) of a 3-D shape.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output mesh (.msh, Gmsh 4.1).")],
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    *,
    options: GivenOptions,
) -> None:
    """Mesh a Gmsh .geo shape with tetrahedra; the .msh is a --domain for every command.

    Needs the optional gmsh package: pip install 'surrogate[meshing]'.

    Example: surrogate mesh generate examples/geometry/torus_section.geo -o torus.msh --h 0.2
    """
    from surrogate.fem.gmsh_meshing import MeshingOptions, generate_mesh

    with user_errors(), progress_display(quiet) as on_progress:
        meshing = MeshingOptions(**options.fields(meshing_group()))
        on_progress(0, 1, f"meshing {geo.name}")
        summary = generate_mesh(geo, out, meshing.h)
        on_progress(1, 1, f"meshed {geo.name}")
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        console.print(f"wrote {out} ({summary['tetrahedra']} tetrahedra, {summary['nodes']} "
                      f"nodes, gmsh {summary['gmsh']})", highlight=False)


def check(
    mesh: Annotated[Path, typer.Argument(help="Tetrahedral mesh file (.msh, .vtu, .vtk, "
                                              ".xdmf, .mesh).")],
    as_json: JsonOpt = False,
) -> None:
    """Read and validate a mesh file as a --domain would; print its size, volume and tags.

    Example: surrogate mesh check part.msh
    """
    from surrogate.fem.file_domain import load_file_domain

    with user_errors():
        domain = load_file_domain(str(mesh))
        base = domain.mesh(1)
        regions = domain.regions(1)
        summary = {"mesh": str(mesh), "tetrahedra": int(base.t.shape[1]),
                   "nodes": int(base.p.shape[1]), "volume": domain.volume,
                   "bounds": domain.bounds.tolist(), "h": domain.mesh_size(1),
                   "boundary_faces": int(domain.boundary_faces.shape[1]),
                   "regions": None if regions is None else sorted({int(r) for r in regions}),
                   "note": domain.note}
    if as_json:
        typer.echo(json_text(summary), nl=False)
        return
    regions_text = ("none" if summary["regions"] is None
                    else ", ".join(map(str, summary["regions"])))
    console.print(f"{mesh}: OK, {summary['tetrahedra']} tetrahedra, {summary['nodes']} nodes, "
                  f"volume {summary['volume']:.6g}, h {summary['h']:.3g}, material tags "
                  f"{regions_text}", highlight=False)
    if domain.note:
        console.print(f"note: {domain.note}", highlight=False)


def register(app: typer.Typer) -> None:
    """Attach the ``mesh`` command group (``generate``, ``check``) to ``app``."""
    mesh_app = typer.Typer(no_args_is_help=True, help="Tetrahedral meshes of your own shapes.")
    mesh_app.command("generate")(command_with_options(generate, [meshing_group()]))
    mesh_app.command("check")(check)
    app.add_typer(mesh_app, name="mesh")
