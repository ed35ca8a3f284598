"""Reading and validating dataset files: every problem becomes one DataFormatError."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.core.errors import DataFormatError, InputError
from surrogate.core.limits import crash_probe, memory_budget, memory_ceiling, size_text
from surrogate.datasets.family.file_group import FamilyData
from surrogate.datasets.format import SPLIT_NAMES
from surrogate.datasets.format_checks import scan_dataset
from surrogate.datasets.hdf5_safety import InvalidFile, check_global_heaps
from surrogate.datasets.recipe_migration import stored_recipe
from surrogate.datasets.trusted_files import is_trusted, trust

PROBE_SECONDS = 30.0
"""Time allowed to the forked parse of a file (plus 1 s per 100 MB) before it counts as a hang."""


@dataclass(frozen=True)
class Dataset:
    """In-memory dataset: inputs (N, d) or (N, T, d); targets (N, k), (N, T, k) or (N, 1, k)."""

    path: Path
    kind: str
    inputs: np.ndarray
    targets: np.ndarray
    input_names: tuple[str, ...]
    target_names: tuple[str, ...]
    splits: dict[str, np.ndarray]
    problem: str
    domain: str
    recipe: dict[str, Any]
    """The stored recipe, fields added since filled in with the values it was made with
    (:func:`~surrogate.datasets.recipe_migration.stored_recipe`)."""
    seed: int
    version: int
    content_hash: str
    attrs: dict[str, Any] = field(default_factory=dict)
    time: np.ndarray | None = None
    family: FamilyData | None = None
    """Per-problem data of a family dataset (format version 2), None otherwise."""

    @property
    def is_family(self) -> bool:
        """True for a dataset of a problem family (``family/`` group, split by problem)."""
        return self.family is not None

    def split(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(inputs, targets)`` rows of split ``name`` (train, val or test)."""
        if name not in self.splits:
            raise InputError(f"unknown split {name!r}; choose one of: {', '.join(SPLIT_NAMES)}")
        idx = self.splits[name]
        return self.inputs[idx], self.targets[idx]

    def __len__(self) -> int:
        return int(self.inputs.shape[0])

    @property
    def readout(self) -> str:
        """``"last"``: sequence targets (N, 1, k) at the last step; else ``"sequence"``."""
        return "last" if self.attrs.get("readout") == "last" else "sequence"


def _scan_in_child(path: Path, file_size: int, budget: int) -> None:
    """The whole scan but the hash, for :func:`~surrogate.core.limits.crash_probe` (a child)."""
    with h5py.File(path, "r") as f:
        scan_dataset(f, check_hash=False, problems=[], file_size=file_size, memory=budget)


def _probe_once(path: Path, stat: os.stat_result, budget: int) -> str | None:
    """:func:`~surrogate.core.limits.crash_probe` of the scan, skipped for a file this process
    wrote or probed before, unchanged (``info`` and ``fit`` read a file several times)."""
    if is_trusted(stat):
        return None
    crash = crash_probe(lambda: _scan_in_child(path, stat.st_size, budget),
                        PROBE_SECONDS + stat.st_size / 1e8)
    if crash is None:
        trust(stat)
    return crash


def _open_and_scan(path: Path, *, check_hash: bool) -> tuple[dict[str, Any] | None, list[str]]:
    """Open ``path`` and scan it; every failure (HDF5 errors included) becomes a problem.

    Global heaps are checked first; then the scan runs once in a forked child, so a file that
    crashes libhdf5 or makes it loop is reported instead of killing or hanging this process.
    """
    problems: list[str] = []
    if not path.is_file():
        return None, ["no such file" if not path.exists() else "not a regular file"]
    budget = memory_budget()
    try:
        if not h5py.is_hdf5(path):
            return None, ["not an HDF5 file"]
        heap_problem = check_global_heaps(path)
        if heap_problem is not None:
            return None, [heap_problem]
        stat = path.stat()
        file_size = stat.st_size
        with memory_ceiling(2 * budget):  # the arrays (<= budget) and their temporaries
            crash = _probe_once(path, stat, budget)
            if crash is not None:
                return None, [f"reading it with libhdf5 {crash}"]
            with h5py.File(path, "r") as f:
                return scan_dataset(f, check_hash=check_hash, problems=problems,
                                    file_size=file_size, memory=budget), problems
    except InvalidFile as exc:
        return None, [*problems, *(str(a) for a in exc.args)]
    except MemoryError:
        return None, [*problems, f"reading it needs more than the {size_text(2 * budget)} "
                                 f"of memory this reader may use (corrupt size field?)"]
    except (OSError, RuntimeError, KeyError, ValueError, TypeError, IndexError,
            OverflowError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, [*problems, f"cannot be read as HDF5 (truncated or corrupt file?): {reason}"]


def validate_dataset(path: str | os.PathLike) -> list[str]:
    """Fully check ``path`` against datasets/FORMAT.md, content hash included.

    Returns the list of problems found (empty when the file is valid).
    """
    return _open_and_scan(Path(path), check_hash=True)[1]


def read_dataset(path: str | os.PathLike, *, verify_hash: bool = True) -> Dataset:
    """Read and validate a dataset file; raise DataFormatError naming the file and problem."""
    path = Path(path)
    raw, problems = _open_and_scan(path, check_hash=verify_hash)
    if problems or raw is None:
        raise DataFormatError(f"{path}: {problems[0] if problems else 'invalid dataset'}")
    attrs = raw["attrs"]
    core = {"format", "version", "kind", "problem", "domain", "recipe", "seed", "content_hash"}
    return Dataset(
        path=path, kind=raw["kind"], inputs=raw["arrays"]["inputs"],
        targets=raw["arrays"]["targets"], input_names=raw["names"]["inputs"],
        target_names=raw["names"]["targets"], splits=raw["splits"],
        problem=str(attrs["problem"]), domain=str(attrs["domain"]),
        recipe=stored_recipe(raw["recipe"]),
        seed=int(attrs["seed"]), version=raw["version"], content_hash=str(attrs["content_hash"]),
        attrs={k: v for k, v in attrs.items() if k not in core}, time=raw["time"],
        family=raw.get("family"),
    )


__all__ = ["Dataset", "FamilyData", "read_dataset", "validate_dataset"]
