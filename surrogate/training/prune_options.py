"""The tolerance of pruning, declared once: ``fit --prune-tol`` (pruning during training) and
``prune --prune-tol`` (pruning a finished run) are one option. Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from surrogate.core.typed_config import TypedConfig, setting


def prune_tol_field(panel: str = "", deprecated: tuple[str, ...] = ()) -> Any:
    """``--prune-tol``: hidden layers with a learned τ below it are deleted."""
    return setting(0.05, doc="Pruning tolerance: delete hidden layers whose learned τ is "
                   "below it.", panel=panel, ge=0.0, deprecated=deprecated)


@dataclass(frozen=True)
class PruneOptions(TypedConfig):
    """What ``surrogate prune`` does to a run: delete the layers with τ < ``prune_tol``."""

    config_name: ClassVar[str] = "prune options"

    prune_tol: float = prune_tol_field(deprecated=("tol",))


__all__ = ["PruneOptions", "prune_tol_field"]
