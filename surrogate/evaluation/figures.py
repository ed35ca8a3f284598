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


def grid_in_inches(size: tuple[float, float], rows: int, columns: int, left: float = 0.85,
                   right: float = 0.15, bottom: float = 0.6, top: float = 0.35,
                   between: float = 0.95) -> dict[str, float]:
    """The subplot parameters (figure fractions) of a ``rows`` × ``columns`` grid of panels in
    a figure of ``size`` inches, from its margins and the gaps between panels in inches."""
    width, height = size
    panel_w = (width - left - right - (columns - 1) * between) / columns
    panel_h = (height - bottom - top - (rows - 1) * between) / rows
    return {"left": left / width, "right": 1 - right / width, "bottom": bottom / height,
            "top": 1 - top / height, "wspace": between / panel_w, "hspace": between / panel_h}


def fixed_margins(fig: Any, **inches: float) -> None:
    """Place a figure's panels with fixed margins and gaps in inches (:func:`grid_in_inches`;
    the defaults leave room for log tick labels, an axis label and a one-line title). A
    layout engine would measure them instead, but it draws the figure once more to do so:
    about 40 % of a plain figure's time."""
    if fig.axes:
        grid = fig.axes[0].get_subplotspec().get_gridspec()
        fig.subplots_adjust(**grid_in_inches(tuple(fig.get_size_inches()), grid.nrows,
                                             grid.ncols, **inches))


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


__all__ = ["BACKEND_LINES", "backend_line", "fixed_margins", "grid_in_inches", "pyplot",
           "save_figure"]
