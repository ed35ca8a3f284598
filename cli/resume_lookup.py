"""Where ``surrogate fit`` writes, and where ``fit DATA --resume`` continues without ``--out``.

A new run goes to ``runs/<arch>``. ``fit DATA --resume`` continues ``runs/<arch>`` when
``--arch`` is given (checked against the stored run), else the one run under ``runs/`` whose
checkpoint was trained on DATA, whatever its architecture.
"""

from __future__ import annotations

from pathlib import Path

RUNS = Path("runs")
CHECKPOINT = "checkpoint.pt"


def new_run_dir(arch: str) -> Path:
    """The default run directory of a new run: ``runs/<arch>``."""
    return RUNS / arch


def _stored(checkpoint: Path) -> dict | None:
    """The checkpoint's payload, None when it cannot be read."""
    from surrogate.core.errors import SurrogateError
    from surrogate.runs.checkpoints import load_checkpoint

    try:
        return load_checkpoint(checkpoint)
    except SurrogateError:
        return None


def runs_of(data: Path) -> list[Path]:
    """The run directories under ``runs/`` whose checkpoint was trained on ``data``."""
    target = str(Path(data).resolve())
    found = []
    for checkpoint in sorted(RUNS.glob(f"*/{CHECKPOINT}")):
        payload = _stored(checkpoint)
        if payload is not None and payload.get("dataset", {}).get("path") == target:
            found.append(checkpoint.parent)
    return found


def check_stored_arch(run_dir: Path, arch: str) -> None:
    """InputError unless the checkpoint in ``run_dir`` (if readable) holds an ``arch`` run."""
    from surrogate.core.errors import InputError

    payload = _stored(run_dir / CHECKPOINT)
    stored = (payload or {}).get("model_config", {}).get("arch", arch)
    if stored != arch:
        raise InputError(f"{run_dir} holds a {stored} run, not {arch}; resume it without --arch")


def run_to_resume(data: Path, arch: str | None) -> Path:
    """The run directory ``fit DATA --resume`` continues when no ``--out`` is given."""
    from surrogate.core.errors import InputError

    if arch is not None:
        check_stored_arch(RUNS / arch, arch)
        return RUNS / arch
    found = runs_of(data)
    if len(found) > 1:
        raise InputError(f"several runs of {data} to resume: {', '.join(map(str, found))}; "
                         "name one with -o")
    return found[0] if found else new_run_dir("resnet")


__all__ = ["check_stored_arch", "new_run_dir", "run_to_resume", "runs_of"]
