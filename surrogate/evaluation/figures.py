"""What every figure module shares: pyplot on the Agg backend, atomic PNG saving, entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from surrogate.core.atomic_files import atomic_path

BACKEND_LINES = ("-", ":", "--", "-.")
"""Line style of a FEM backend's curves, by its place in the registry (the own one solid)."""


def pyplot() -> Any:
    """matplotlib.pyplot on the non-interactive Agg backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path) -> Path:
    """Save a figure as PNG through a temporary file and a rename; close it."""
    plt = pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(path, ".png") as tmp:
            fig.savefig(tmp, dpi=120, format="png")
    finally:
        plt.close(fig)
    return path


def backend_line(backend: str) -> str:
    """The line style of ``backend``'s FEM curves."""
    from surrogate.fem.hcurl.registry import backend_rank

    return BACKEND_LINES[backend_rank(backend) % len(BACKEND_LINES)]


__all__ = ["BACKEND_LINES", "backend_line", "pyplot", "save_figure"]
