"""The Pareto figure of a family evaluation: median relative L² error against time per query.

One PNG per test domain: the FEM mixed solves as one curve per (backend, Nédélec order)
through its mesh levels, the fitted ones (meshing included) one dotted curve per order through
their maxh, each surrogate as two points (the whole field and u at the probe
points), log–log.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surrogate.evaluation.figures import backend_line, pyplot, save_figure
from surrogate.fem.hcurl.registry import OWN_BACKEND, backend_rank, fem_name


def pareto_figure(pareto: Mapping[str, Any], domain: str, family: str, path: Path) -> Path:
    """Draw one domain's Pareto picture to ``path`` (PNG)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 5.0))
    solves = [p for p in pareto["fem"] if p["method"] == "solve"
              and p["error"] is not None and p["seconds"]]
    keys = sorted({(p.get("backend", OWN_BACKEND), p["order"], bool(p.get("mesh")))
                   for p in solves}, key=lambda key: (key[2], backend_rank(key[0]), key))
    for i, (backend, order, fitted) in enumerate(keys):
        points = sorted((p for p in solves if (p.get("backend", OWN_BACKEND), p["order"],
                                                bool(p.get("mesh"))) == (backend, order, fitted)),
                        key=lambda p: -p["maxh"] if fitted else p["level"])
        style = ("D:" if fitted else ("o" if order == 0 else "s") + backend_line(backend))
        where = "fitted meshes, maxh" if fitted else "levels"
        ax.loglog([p["seconds"] for p in points], [p["error"] for p in points], style,
                  color=f"C{i % 10}", label=f"{fem_name(backend, order)} mixed solve ({where})")
        for p in points:
            ax.annotate(f"h{p['maxh']:g}" if fitted else f"L{p['level']}",
                        (p["seconds"], p["error"]), fontsize=8, textcoords="offset points",
                        xytext=(4, 4))
    markers = "^vD*PX<>"
    for i, run in enumerate(pareto["surrogates"]):
        if run["error"] is None:
            continue
        marker, colour = markers[i % len(markers)], f"C{(i + len(keys)) % 10}"
        ax.loglog([run["field_seconds"]], [run["error"]], marker, markersize=9, color=colour,
                  label=f"{run['label']} (whole field)")
        ax.loglog([run["probes_seconds"]], [run["error"]], marker, markersize=9, color=colour,
                  fillstyle="none", label=f"{run['label']} (probe points)")
        if run.get("batch_seconds") is not None:
            ax.loglog([run["batch_seconds"]], [run["error"]], marker, markersize=9,
                      color=colour, fillstyle="left",
                      label=f"{run['label']} (whole field, per problem of a batch)")
    ax.set_xlabel("time per query [s] (FEM: mesh → u_h)")
    ax.set_ylabel("median relative L² error over unseen problems")
    ax.set_title(f"{family} on {domain}: error against time per query")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def make_family_figures(summary: Mapping[str, Any], out_dir: str | Path) -> dict[str, Any]:
    """The Pareto PNG per domain in ``out_dir``; ``{"figures": {key: {"file", "caption"}},
    "skipped": [...]}`` like the other kinds' figure lists."""
    out_dir = Path(out_dir)
    figures: dict[str, Any] = {}
    skipped: list[str] = []
    for domain, pareto in summary["pareto"].items():
        name = f"pareto_{domain}.png"
        try:
            pareto_figure(pareto, domain, summary["family"], out_dir / name)
        except ImportError as exc:  # matplotlib missing: say so, keep the rest
            skipped.append(f"figure {name} skipped: {exc}")
            continue
        figures[f"pareto_{domain}"] = {
            "file": name,
            "caption": f"{summary['family']} on {domain}: median relative L² error over "
                       f"{summary['draw']['problems']} unseen problems against time per "
                       "query; FEM mixed solves per backend and order through the levels (fitted "
                       "meshes: dotted, through maxh, meshing included), "
                       "each surrogate "
                       "for the whole field (filled), at the probe points (open) and per "
                       "problem of a batch (half filled)"}
    return {"figures": figures, "skipped": skipped}


__all__ = ["make_family_figures", "pareto_figure"]
