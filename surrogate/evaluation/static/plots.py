"""Figures of an evaluation (τ-learning paper Figs. 3–5, Table 1) as PNG files.

matplotlib with the Agg backend, imported inside the functions. Every function takes plain
data (the ``evaluation.json`` dict, training histories, slice arrays from
``surrogate.evaluation.static.slices.slice_fields``) and writes one PNG atomically. The 3D
view is rendered with pyvista off-screen in a child process, so a machine without a working
OpenGL stack gives a skip line, never a crash.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.atomic_files import ordinary_permissions
from surrogate.evaluation.figures import fixed_margins, grid_in_inches, pyplot, save_figure
from surrogate.evaluation.static.fem_order_plots import add_higher_order_lines, plot_error_vs_time

_RENDER_TIMEOUT_S = 120


def _run_style(index: int) -> dict[str, Any]:
    markers = "osD^vP*X"
    return {"marker": markers[index % len(markers)], "color": f"C{index % 10}"}


def plot_error_vs_h(evaluation: Mapping[str, Any], path: str | Path) -> Path:
    """L² error vs mesh size h, log–log, one panel per domain (Fig. 3): N0 vs every run.

    The N0 line is labelled with its observed rate (least-squares slope of log err vs log h).
    """
    plt = pyplot()
    records = evaluation["records"]
    domains = list(dict.fromkeys(r["domain"] for r in records))
    labels = list(evaluation["runs"])
    fig, axes = plt.subplots(1, len(domains), figsize=(5.5 * len(domains), 4.5), squeeze=False)
    for ax, domain in zip(axes[0], domains, strict=True):
        rows = sorted((r for r in records if r["domain"] == domain), key=lambda r: r["h"])
        h = np.array([r["h"] for r in rows])
        fem = [r["fem"]["l2_error"] if r.get("fem") and r["fem"].get("order", 0) == 0 else None
               for r in rows]
        fem_pts = [(hh, e) for hh, e in zip(h, fem, strict=True) if e]
        if fem_pts:
            fh, fe = np.array(fem_pts).T
            method = next(r["fem"]["method"] for r in rows if r.get("fem"))
            name = "N0 best approx." if method == "best" else "N0 solve"
            if len(fh) > 1:
                rate = np.polyfit(np.log(fh), np.log(fe), 1)[0]
                name += f" (rate {rate:.2f})"
            ax.loglog(fh, fe, "k-s", lw=2, label=name)
        add_higher_order_lines(ax, rows)
        for i, label in enumerate(labels):
            err = np.array([r["runs"][label]["l2_error"] for r in rows], dtype=float)
            ax.loglog(h, err, "--", label=f"NN {label}", **_run_style(i))
        ax.set_xticks(h, [f"{v:.3g}" for v in h])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel("mesh size h (length units)")
        ax.set_ylabel(r"$\|u - \cdot\|_{L^2(\tilde\Omega)}$")
        ax.set_title(f"L² error on the {domain} ({evaluation.get('reference', 'exact')} "
                     "reference)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fixed_margins(fig)
    return save_figure(fig, path)


def plot_training_loss(histories: Mapping[str, Sequence[Mapping[str, Any]]],
                       path: str | Path) -> Path:
    """Training (solid) and validation (dashed) loss vs epoch, log y (Fig. 1 / Fig. 3c)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for i, (label, rows) in enumerate(histories.items()):
        color = f"C{i % 10}"
        epochs = np.array([row.get("epoch", k) for k, row in enumerate(rows)], dtype=float)
        for key, style in (("train_loss", "-"), ("val_loss", "--")):
            values = np.array([row.get(key, np.nan) for row in rows], dtype=float)
            if np.isfinite(values).any():
                ax.semilogy(epochs, values, style, color=color,
                            label=f"{label} ({key.split('_')[0]})")
    ax.set_xlabel("epoch")
    ax.set_ylabel("mean squared error (normalised units)")
    ax.set_title("training history")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fixed_margins(fig)
    return save_figure(fig, path)


def plot_taus(taus: Mapping[str, Sequence[float] | None], path: str | Path) -> Path:
    """Step sizes τ^[ℓ] per layer as grouped bars, one group per layer (Table 1)."""
    plt = pyplot()
    items = [(label, np.asarray(t, dtype=float)) for label, t in taus.items() if t is not None]
    depth = max((len(t) for _, t in items), default=0)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * depth + 3), 4.5))
    width = 0.8 / max(len(items), 1)
    for i, (label, t) in enumerate(items):
        x = np.arange(len(t)) + (i - (len(items) - 1) / 2) * width
        ax.bar(x, t, width=width, label=label, color=f"C{i % 10}")
    ax.set_xticks(np.arange(depth), [f"τ[{k}]" for k in range(depth)])
    ax.set_xlabel("layer ℓ")
    ax.set_ylabel("step size τ[ℓ] (dimensionless)")
    ax.set_title("step sizes per layer (fixed or learned)")
    ax.grid(True, axis="y", alpha=0.3)
    if items:
        ax.legend(fontsize=7)
    fixed_margins(fig)
    return save_figure(fig, path)


def _outline(ax, s, t, mask: np.ndarray, **style) -> None:
    """Draw the boundary of a boolean region on the grid (contour of the indicator at 1/2)."""
    if mask.any() and not mask.all():
        ax.contour(s, t, mask.astype(float), levels=[0.5], **style)


def plot_slice_errors(slices: Mapping[str, Any], path: str | Path) -> Path:
    """Pointwise |u − u_NN| on the slice plane, one panel per run, shared log colour scale
    (Fig. 4); the training domain's outline solid white, the test domains' dashed."""
    plt = pyplot()
    from matplotlib.colors import LogNorm

    labels = list(slices["error"])
    s, t = slices["s"], slices["t"]
    errors = [np.asarray(slices["error"][k]) for k in labels]
    positive = np.concatenate([e[np.isfinite(e) & (e > 0)] for e in errors])
    lo, hi = (positive.min(), positive.max()) if positive.size else (1e-3, 1.0)
    lo = max(lo, hi * 1e-6)
    if hi <= lo * 1.01:  # a (nearly) constant error: give the colour bar some range
        lo, hi = lo / 2, hi * 2
    norm = LogNorm(vmin=lo, vmax=hi)
    ncols = min(len(labels), 2)
    nrows = -(-len(labels) // ncols)
    grid, colorbar = _slice_grid(ncols, nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=grid.pop("figsize"), squeeze=False,
                             gridspec_kw=grid)
    xname, yname = slices["axis_names"]
    plane = f"x{slices['axis'] + 1} = {slices['value']:g}"
    image = None
    for ax, label, err in zip(axes.ravel(), labels, errors, strict=False):
        image = ax.pcolormesh(s, t, np.where(err > 0, err, np.nan), norm=norm,
                              cmap="viridis", shading="auto")
        _outline(ax, s, t, slices["inside_training"][label], colors="white", linewidths=1.5)
        for mask in slices["inside_test"].values():
            _outline(ax, s, t, mask, colors="red", linewidths=1.0, linestyles="dashed")
        ax.set_aspect("equal")
        ax.set_xlabel(f"{xname} (length units)")
        ax.set_ylabel(f"{yname} (length units)")
        ax.set_title(f"|u − u_NN|, {label}, {plane}\nwhite: training "
                     f"{slices['training_domain'][label]}, red dashed: test domain", fontsize=8)
    for ax in axes.ravel()[len(labels):]:
        ax.set_visible(False)
    if image is not None:
        fig.colorbar(image, cax=fig.add_axes(colorbar), label="|u − u_NN| (units of u)")
    return save_figure(fig, path)


def _slice_grid(ncols: int, nrows: int) -> tuple[dict[str, Any], tuple[float, ...]]:
    """Fixed places of the slice panels (5.6 × 4.6 inches each, room for tick labels, axis
    labels and a two-line title) and of one colour bar on the right, in figure fractions
    (a layout engine would find about these and draw the figure twice)."""
    width, height = 5.6 * ncols, 4.6 * nrows
    bottom, top = 0.55, 0.5
    grid = grid_in_inches((width, height), nrows, ncols, left=0.85, right=1.15, bottom=bottom,
                          top=top, between=0.95)
    colorbar = (1 - 0.95 / width, bottom / height, 0.15 / width, 1 - (bottom + top) / height)
    return {"figsize": (width, height), **grid}, colorbar


QUIVER_GRID = {"left": 0.05, "right": 0.92, "bottom": 0.11, "top": 0.93, "wspace": 0.22}
QUIVER_COLORBAR = (0.933, 0.11, 0.012, 0.82)
"""Fixed places of the quiver figure's panels and colour bar, in figure fractions (a layout
engine would find about these and double the figure's drawing time: it draws it twice)."""


def plot_slice_quiver(slices: Mapping[str, Any], label: str, path: str | Path,
                      arrows: int = 21) -> Path:
    """Quiver of the in-plane components of u and u_NN on the slice, and the in-plane error
    |u − u_NN| (R² norm) restricted to the training domain (Fig. 5)."""
    plt = pyplot()
    s, t = np.asarray(slices["s"]), np.asarray(slices["t"])
    a, b = slices["plane_axes"]
    u, u_nn = np.asarray(slices["u"]), np.asarray(slices["u_nn"][label])
    inside = np.asarray(slices["inside_training"][label])
    step = max(1, len(s) // arrows)
    sub = (slice(None, None, step), slice(None, None, step))
    gs, gt = np.meshgrid(s, t, indexing="xy")
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), gridspec_kw=QUIVER_GRID)
    xname, yname = slices["axis_names"]
    plane = f"x{slices['axis'] + 1} = {slices['value']:g}"
    for ax, field, title in ((axes[0], u, "u"), (axes[1], u_nn, f"u_NN ({label})")):
        ax.quiver(gs[sub], gt[sub], field[..., a][sub], field[..., b][sub], color="C0")
        _outline(ax, s, t, inside, colors="k", linewidths=1.0)
        ax.set_title(f"{title}: ({xname}, {yname}) components, {plane}", fontsize=9)
    err2 = np.hypot(u[..., a] - u_nn[..., a], u[..., b] - u_nn[..., b])
    image = axes[2].pcolormesh(s, t, np.where(inside, err2, np.nan), cmap="magma",
                               shading="auto")
    fig.colorbar(image, cax=fig.add_axes(QUIVER_COLORBAR),
                 label="|u − u_NN| in-plane (units of u)")
    _outline(axes[2], s, t, inside, colors="k", linewidths=1.0)
    axes[2].set_title(f"pointwise error inside the training "
                      f"{slices['training_domain'][label]}", fontsize=9)
    for ax in axes:
        ax.set_aspect("equal")
        ax.set_xlabel(f"{xname} (length units)")
        ax.set_ylabel(f"{yname} (length units)")
    return save_figure(fig, path)


# ------------------------------------------------------------------------------- 3D rendering

_RENDER_SCRIPT = """
import sys
import pyvista as pv
pv.OFF_SCREEN = True
name, views = sys.argv[1], sys.argv[2:]
for vtu, png in zip(views[::2], views[1::2]):
    grid = pv.read(vtu)
    plotter = pv.Plotter(off_screen=True, window_size=(900, 700))
    clipped = grid.clip(normal=(1, 1, 0), invert=False) if grid.n_cells > 1 else grid
    plotter.add_mesh(clipped, scalars=name, preference="cell", cmap="viridis",
                     scalar_bar_args={"title": name})
    plotter.add_mesh(grid.outline(), color="black")
    plotter.show_axes()
    plotter.camera_position = "iso"
    plotter.screenshot(png)
    plotter.close()
"""


def _pyvista_installed() -> bool:
    """Whether pyvista (the optional extra ``surrogate[viz]``) can be imported; not imported."""
    if "pyvista" in sys.modules:
        return sys.modules["pyvista"] is not None
    return importlib.util.find_spec("pyvista") is not None


def render_errors_3d(views: Sequence[tuple[str | Path, str | Path]], array_name: str,
                     timeout: float = _RENDER_TIMEOUT_S) -> list[str | None]:
    """Render cell array ``array_name`` of each ``(vtu, png)`` to its PNG with pyvista
    off-screen, all in one child process (a missing OpenGL/X stack can abort VTK; pyvista's
    import and set-up are paid once). Per view ``None`` on success, otherwise one line saying
    why it was skipped; a PNG appears whole or not at all."""
    if not _pyvista_installed():
        return ["3D view skipped: pyvista is not installed (pip install 'surrogate[viz]')"
                ] * len(views)
    temporaries = []
    for _, png in views:
        png = Path(png)
        png.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{png.stem}.", suffix=".png", dir=png.parent)
        os.close(fd)
        temporaries.append(tmp)
    try:
        args = [str(a) for (vtu, _), tmp in zip(views, temporaries, strict=True)
                for a in (vtu, tmp)]
        proc = subprocess.run([sys.executable, "-c", _RENDER_SCRIPT, array_name, *args],
                              capture_output=True, text=True, timeout=timeout * len(views),
                              check=False)
        lines = [ln for ln in (proc.stderr or "").splitlines() if ln.strip()]
        failed = ("3D view skipped: off-screen rendering unavailable "
                  f"({(lines[-1].strip() if lines else f'exit code {proc.returncode}')[:160]})")
        reasons: list[str | None] = []
        for (_, png), tmp in zip(views, temporaries, strict=True):
            if proc.returncode != 0 or os.path.getsize(tmp) == 0:
                reasons.append(failed)
                continue
            ordinary_permissions(tmp)
            os.replace(tmp, png)
            reasons.append(None)
        return reasons
    except (OSError, subprocess.SubprocessError) as exc:
        return [f"3D view skipped: off-screen rendering unavailable ({type(exc).__name__})"
                ] * len(views)
    finally:
        for tmp in temporaries:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def make_figures(
    evaluation: Mapping[str, Any],
    plots_dir: str | Path,
    *,
    histories: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    slices: Mapping[str, Any] | None = None,
    vtu_for_3d: Mapping[str, str | Path] | None = None,
) -> dict[str, Any]:
    """Write every figure of an evaluation into ``plots_dir``.

    Returns ``{"figures": {key: {"file", "caption"}}, "skipped": [line, ...]}`` with file
    names relative to ``plots_dir``. ``vtu_for_3d`` maps a domain name to a ``.vtu`` whose
    ``error_nn`` cell array is rendered in 3D.
    """
    plots_dir = Path(plots_dir)
    figures: dict[str, dict[str, str]] = {}
    skipped: list[str] = []

    def add(key: str, path: Path, caption: str) -> None:
        figures[key] = {"file": path.name, "caption": caption}

    if evaluation["records"]:
        add("error_vs_h", plot_error_vs_h(evaluation, plots_dir / "error_vs_h.png"),
            "L² error vs mesh size h on each test domain: surrogates (dashed, flat in h) "
            "against the Nédélec baselines of every evaluated backend and order (Fig. 3).")
        if any(r.get("fem_orders") for r in evaluation["records"]):
            add("error_vs_time", plot_error_vs_time(evaluation, plots_dir / "error_vs_time.png"),
                "L² error against wall time: FEM of each backend and order over the mesh levels "
                "and the surrogates; the fastest FEM at a run's error is the leftmost FEM point "
                "below it.")
    if histories and any(histories.values()):
        add("training_loss", plot_training_loss(histories, plots_dir / "training_loss.png"),
            "Training and validation loss per epoch (Figs. 1, 3c).")
    taus = {label: info.get("taus") for label, info in evaluation["runs"].items()}
    if any(t is not None for t in taus.values()):
        add("taus", plot_taus(taus, plots_dir / "taus.png"),
            "Step size τ per layer of every run (Table 1).")
    if slices is not None:
        plane = f"x{slices['axis'] + 1} = {slices['value']:g}"
        add("slice_error", plot_slice_errors(slices, plots_dir / "slice_error.png"),
            f"Pointwise error |u − u_NN| on the plane {plane} (Fig. 4).")
        for label in slices["u_nn"]:
            safe = label.replace("/", "_")
            add(f"slice_quiver:{label}",
                plot_slice_quiver(slices, label, plots_dir / f"slice_quiver_{safe}.png"),
                f"u and u_NN of {label} on {plane}, pointwise error inside the training "
                "domain (Fig. 5).")
    views = {domain: (vtu, plots_dir / f"error_3d_{domain}.png")
             for domain, vtu in (vtu_for_3d or {}).items()}
    reasons = render_errors_3d(list(views.values()), "error_nn") if views else []
    for (domain, (_, png)), reason in zip(views.items(), reasons, strict=True):
        if reason is None:
            add(f"error_3d:{domain}", png, f"|u − u_NN| of the first run on the {domain} "
                "(finest level, clipped), rendered with pyvista.")
        else:
            skipped.append(reason)
    return {"figures": figures, "skipped": skipped}


__all__ = [
    "plot_error_vs_h", "plot_training_loss", "plot_taus", "plot_slice_errors",
    "plot_slice_quiver", "render_errors_3d", "make_figures",
]
