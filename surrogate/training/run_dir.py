"""The run directory ``fit`` writes: checked before any work, old runs replaced whole."""

from __future__ import annotations

from pathlib import Path

from surrogate.core.errors import DataFormatError, InputError
from surrogate.core.interrupts import held_signals
from surrogate.core.output_paths import check_output_folder
from surrogate.runs.layout import (
    CHECKPOINT_FILE,
    CONFIG_FILE,
    HISTORY_FILE,
    METADATA_FILE,
    METRICS_FILE,
    MODEL_FILE,
)

RUN_FILES = (MODEL_FILE, CONFIG_FILE, METADATA_FILE, HISTORY_FILE, METRICS_FILE)


def prepare_run_dir(out_dir: Path, resume: bool, overwrite: bool, remove: bool = True) -> None:
    """Check ``out_dir``; without ``resume`` remove an old run's files (only when ``remove``:
    of the data-parallel processes, rank 0 alone touches the run directory)."""
    known = (*RUN_FILES, CHECKPOINT_FILE)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"output {out_dir} exists and is not a directory")
    check_output_folder(out_dir, what="run directory")
    if resume:
        if not (out_dir / CHECKPOINT_FILE).is_file():
            raise DataFormatError(f"{out_dir / CHECKPOINT_FILE}: no checkpoint to resume from")
        return
    present = [name for name in known if (out_dir / name).exists()]
    if present and not overwrite:
        raise InputError(f"{out_dir} already holds a run ({', '.join(present)}); use --resume "
                         "to continue it or --overwrite to replace it")
    with held_signals():  # the old run goes as a whole or not at all
        for name in present if remove else ():
            (out_dir / name).unlink()


def run_files_complete(out_dir: Path) -> bool:
    """True when ``out_dir`` holds every file of a finished run (each written atomically)."""
    return all((out_dir / name).is_file() for name in RUN_FILES)


__all__ = ["RUN_FILES", "prepare_run_dir", "run_files_complete"]
