"""Options of ``surrogate evaluate`` and ``surrogate report``, and the typed options they make.

Pointwise runs take the test-domain options, sequence runs the set options, family runs the
test-domain options plus ``--problems`` and ``--extrapolate``; ``POINTWISE_ONLY``,
``SEQUENCE_ONLY``, ``FAMILY_ONLY`` and ``NOT_FAMILY`` name them so that the command can refuse
those of the other kind.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer


class FemBaseline(str, Enum):
    best = "best"
    solve = "solve"
    none = "none"


class DeviceChoice(str, Enum):
    cpu = "cpu"
    cuda = "cuda"
    auto = "auto"


class SolverChoice(str, Enum):
    auto = "auto"
    direct = "direct"
    iterative = "iterative"


class SetChoice(str, Enum):
    unseen_signals = "unseen-signals"
    unseen_materials = "unseen-materials"
    longer_horizon = "longer-horizon"


RunDirs = Annotated[list[Path], typer.Argument(help="Run directories written by `surrogate fit`.")]
VtkOpt = Annotated[Path | None, typer.Option(help="Folder for .vtu/.pvd files (ParaView).")]
DomainOpt = Annotated[
    list[str] | None,
    typer.Option("--domain", "-d", help="Test domain (repeatable): cylinder, cube, ball, "
                 "l-prism, shell, or a tet mesh file (.msh, .vtu, .xdmf, .mesh). "
                 "\\[default: cube]"),
]
LevelsOpt = Annotated[str, typer.Option(help="Mesh levels of the test domains: '1-5', '3', "
                                             "'1,2,4'.")]
FemOpt = Annotated[FemBaseline, typer.Option(help="N0 baseline: H(curl) best approximation, "
                                                  "the mixed solve, or none.")]
SolverOpt = Annotated[SolverChoice, typer.Option(help="Linear solver of the FEM baseline.")]
FemOrderOpt = Annotated[str, typer.Option(
    "--fem-order", metavar="ORDERS",
    help="FEM orders to compare with, comma-separated (docs/cli.md's naming): 0 = "
    "lowest-order Nédélec (N0), 1 = complete linear (L² error O(h²)). The fastest FEM at "
    "each run's error is named.")]
SliceOpt = Annotated[str, typer.Option("--slice", help="Plane of the slice figures, AXIS=VALUE.")]
ProblemOpt = Annotated[
    str | None, typer.Option(help="Problem to evaluate on; every run must have been trained "
                                  "on it. \\[default: the runs' problem]")]
DeviceOpt = Annotated[DeviceChoice, typer.Option(help="Where the surrogates run (the FEM "
                                                    "always runs on the CPU).")]
IntorderOpt = Annotated[int, typer.Option(help="Quadrature order of the L² errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the results as JSON.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no tables.")]

DataOpt = Annotated[Path | None, typer.Option(
    "--data", help="Sequence runs: the training dataset, if it moved. \\[default: the path "
    "recorded in the run; its content hash must match]")]
SetOpt = Annotated[list[SetChoice] | None, typer.Option(
    "--set", help="Sequence runs: evaluation set (repeatable). \\[default: every set the "
    "dataset's recipe allows]")]
HorizonOpt = Annotated[float | None, typer.Option(
    help="Sequence runs: longer-horizon length as a multiple of the trained one. "
    "\\[default: 2]")]
FreshOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: also regenerate N new sequences beyond the file (unseen signals; "
    "the other sets use the same ones). \\[default: 0]")]
MaxSeqOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: at most N sequences per set. \\[default: all]")]
MaterialSeedOpt = Annotated[int | None, typer.Option(
    help="Sequence runs (maxwell-td): seed of the new material pool. \\[default: seed + 1]")]
MaterialRangeOpt = Annotated[list[str] | None, typer.Option(
    "--material-range", help="Sequence runs (maxwell-td): range of a new material, "
    "NAME=LOW,HIGH with NAME eps, mu or sigma (repeatable; extrapolates outside training).")]
SampleOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: which unseen-signals sequence --vtk shows. \\[default: 0]")]
VtkEveryOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: write every N-th time step to VTK. \\[default: at most 50 frames]")]

ProblemsOpt = Annotated[int | None, typer.Option(
    "--problems", help="Family runs: number K of unseen problems drawn from the training "
    "parameter box. \\[default: 32]")]
ExtrapolateOpt = Annotated[bool, typer.Option(
    "--extrapolate", help="Family runs: draw the unseen problems from the parameter box "
    "widened by 25 % of its width per side.")]
DrawSeedOpt = Annotated[int | None, typer.Option(
    "--draw-seed", min=0, help="Family runs: seed of the quasi-random draw of the unseen "
    "problems (another seed: another K problems, to check a conclusion on a fresh draw). "
    "\\[default: the data's seed + 1]")]
TruthLevelOpt = Annotated[int | None, typer.Option(
    "--truth-level", min=1, help="Family runs without a closed form: mesh level of the FEM truth "
    "that judges every error (finer than the data's truth: its error is smaller). "
    "\\[default: the data's truth level]")]

POINTWISE_ONLY = ("domain", "levels", "fem", "fem_order", "solver", "slice_", "problem",
                  "intorder")
SEQUENCE_ONLY = ("data", "set_", "horizon_factor", "fresh", "max_sequences", "material_seed",
                 "material_range", "sample", "vtk_every")
FAMILY_ONLY = ("problems", "extrapolate", "truth_level", "draw_seed")
NOT_FAMILY = ("fem", "fem_order", "slice_", "problem", "vtk")
"""Options of single-problem runs that a family evaluation refuses."""


def pointwise_options(*, domain: list[str] | None = None, levels: str = "1-4",
                      fem: FemBaseline = FemBaseline.best, fem_order: str = "0,1",
                      solver: SolverChoice = SolverChoice.auto, slice_: str = "z=0.5",
                      intorder: int = 4, device: DeviceChoice = DeviceChoice.cpu) -> Any:
    """The typed options of a pointwise evaluation (InputError on bad values)."""
    from surrogate.cli.common import parse_levels
    from surrogate.evaluation.static.options import EvaluationOptions, parse_slice
    from surrogate.fem.hcurl.registry import parse_orders

    axis, value = parse_slice(slice_)
    return EvaluationOptions(domains=tuple(dict.fromkeys(domain or ["cube"])),
                             levels=tuple(parse_levels(levels)), fem=fem.value,
                             fem_orders=parse_orders(fem_order),
                             solver=solver.value, intorder=intorder, slice_axis=axis,
                             slice_value=value, device=device.value)


def family_options(*, problems: int | None = None, extrapolate: bool = False,
                   domain: list[str] | None = None, levels: str | None = None,
                   solver: SolverChoice = SolverChoice.auto, intorder: int = 4,
                   device: DeviceChoice = DeviceChoice.cpu,
                   truth_level: int | None = None, draw_seed: int | None = None) -> Any:
    """The typed options of a family evaluation (None -> the family's defaults)."""
    from surrogate.cli.common import parse_levels
    from surrogate.evaluation.family.options import FamilyEvaluationOptions

    return FamilyEvaluationOptions(
        problems=32 if problems is None else problems, extrapolate=extrapolate,
        domains=tuple(dict.fromkeys(domain)) if domain else None,
        levels=tuple(parse_levels(levels)) if levels else None, solver=solver.value,
        intorder=intorder, device=device.value, truth_level=truth_level, seed=draw_seed)


def sequence_options(*, set_: list[SetChoice] | None = None,
                     horizon_factor: float | None = None, fresh: int | None = None,
                     max_sequences: int | None = None, material_seed: int | None = None,
                     material_range: list[str] | None = None, sample: int | None = None,
                     vtk_every: int | None = None,
                     device: DeviceChoice = DeviceChoice.cpu) -> Any:
    """The typed options of a sequence evaluation (None -> the defaults)."""
    from surrogate.evaluation.sequence.measure import SequenceEvaluationOptions

    return SequenceEvaluationOptions(
        sets=tuple(s.value for s in set_) if set_ else None,
        horizon_factor=2.0 if horizon_factor is None else horizon_factor,
        fresh=fresh or 0, max_sequences=max_sequences, material_seed=material_seed,
        material_ranges=tuple(material_range or ()), sample=sample or 0,
        vtk_every=vtk_every, device=device.value)


__all__ = ["FAMILY_ONLY", "NOT_FAMILY", "POINTWISE_ONLY", "SEQUENCE_ONLY", "DeviceChoice",
           "DrawSeedOpt", "FemBaseline", "SetChoice", "SolverChoice", "TruthLevelOpt",
           "family_options", "pointwise_options", "sequence_options"]
