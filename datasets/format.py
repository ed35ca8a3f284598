"""Constants of the dataset file format (the spec is datasets/FORMAT.md)."""

import os
from pathlib import Path

FORMAT_NAME = "surrogate-dataset"
FORMAT_VERSION = 2
"""Version 2 adds the optional ``family/`` group (datasets of a problem family); version-1
files stay readable."""
KINDS = ("pointwise", "sequence")
READOUTS = ("sequence", "last")
"""Sequence targets: one per time step (N, T, k), or at the last step only (N, 1, k)."""
SPLIT_NAMES = ("train", "val", "test")
REQUIRED_ATTRS = ("format", "version", "kind", "problem", "domain", "recipe", "seed",
                  "content_hash", "package_version", "created")
DTYPES = ("float64", "float32")


def summary_path(path: str | os.PathLike) -> Path:
    """The JSON summary written next to a dataset: ``<path>.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


__all__ = ["summary_path", "FORMAT_NAME", "FORMAT_VERSION", "KINDS", "READOUTS", "SPLIT_NAMES",
           "REQUIRED_ATTRS", "DTYPES"]
