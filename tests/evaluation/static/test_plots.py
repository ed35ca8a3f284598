"""Figures and the HTML report: valid PNGs of non-trivial size, graceful 3D skip, index.html."""

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from surrogate.evaluation.report import write_report
from surrogate.evaluation.static import plots
from surrogate.evaluation.static.measure import evaluate_runs
from surrogate.evaluation.static.options import EvaluationOptions
from surrogate.evaluation.static.slices import slice_fields
from surrogate.fem.problems import get_problem

MAXWELL = get_problem("maxwell")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class OffsetRun:
    """Stand-in for a loaded run whose surrogate is u(x) + c·x₁ (error grows along x₁)."""

    def __init__(self, path, c):
        self.path, self.c = Path(path), c
        self.dataset = {"problem": "maxwell", "domain": "cylinder",
                        "input_names": list(MAXWELL.in_names),
                        "target_names": list(MAXWELL.out_names)}
        self.history = [{"epoch": k, "train_loss": np.exp(-k / 5), "val_loss": np.exp(-k / 6)}
                        for k in range(30)]

    def predict(self, inputs, batch_size=65536):
        x = np.asarray(inputs)[:, :3]
        return MAXWELL.u(x) + self.c * np.column_stack([x[:, 0], x[:, 0] ** 2, 0 * x[:, 0]])


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    vtk_dir = tmp_path_factory.mktemp("vtk")
    runs = [OffsetRun("runs/resnet", 0.01), OffsetRun("runs/fdnn", 0.05)]
    options = EvaluationOptions(domains=("cube", "ball"), levels=(1, 2), slice_resolution=61,
                                fem_backends=("skfem",))
    result = evaluate_runs(runs, MAXWELL, options, vtk_dir=vtk_dir)
    result.runs["resnet"]["taus"] = [0.9, 0.5]
    result.runs["fdnn"]["taus"] = [0.3, 0.7]
    return result, slice_fields(runs, MAXWELL, options), vtk_dir


def _check_png(path: Path, min_width: int = 300, min_height: int = 200) -> np.ndarray:
    import matplotlib.image as mpimg

    assert path.read_bytes()[:8] == PNG_SIGNATURE
    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] >= min_height and image.shape[1] >= min_width
    assert image[..., :3].std() > 0.05  # not a blank canvas
    return image


def test_every_figure_is_a_valid_png(evaluated, tmp_path):
    result, slices, _ = evaluated
    data = result.to_dict()
    _check_png(plots.plot_error_vs_h(data, tmp_path / "e.png"), min_width=900)  # 2 panels
    _check_png(plots.plot_training_loss(result.histories, tmp_path / "loss.png"))
    _check_png(plots.plot_taus({k: v["taus"] for k, v in data["runs"].items()},
                               tmp_path / "taus.png"))
    _check_png(plots.plot_slice_errors(slices, tmp_path / "slice.png"))
    _check_png(plots.plot_slice_quiver(slices, "fdnn", tmp_path / "quiver.png"), min_width=1200)
    assert not list(tmp_path.glob(".*"))  # no temporary files left


def test_make_figures_lists_files_with_captions(evaluated, tmp_path):
    result, slices, _ = evaluated
    figures = plots.make_figures(result.to_dict(), tmp_path, histories=result.histories,
                                 slices=slices)
    files = {f["file"] for f in figures["figures"].values()}
    assert files == {"error_vs_h.png", "error_vs_time.png", "training_loss.png", "taus.png",
                     "slice_error.png", "slice_quiver_resnet.png", "slice_quiver_fdnn.png"}
    for name in files:
        _check_png(tmp_path / name)
    assert all(f["caption"] for f in figures["figures"].values())


def test_3d_view_is_skipped_with_one_line_when_rendering_crashes(evaluated, tmp_path,
                                                                 monkeypatch):
    _, _, vtk_dir = evaluated
    # a child that aborts like VTK without an OpenGL context
    monkeypatch.setattr(plots, "_RENDER_SCRIPT", "import os; os.abort()")
    [reason] = plots.render_errors_3d([(vtk_dir / "cube_level2.vtu", tmp_path / "view.png")],
                                      "error_nn")
    assert reason is not None and reason.startswith("3D view skipped")
    assert "\n" not in reason
    assert not (tmp_path / "view.png").exists() and not list(tmp_path.iterdir())
    figures = plots.make_figures({"records": [], "runs": {}}, tmp_path / "f",
                                 vtu_for_3d={"cube": vtk_dir / "cube_level2.vtu"})
    assert figures["skipped"] == [reason] and "error_3d:cube" not in figures["figures"]


def test_3d_view_renders_where_the_machine_can(evaluated, tmp_path):
    _, _, vtk_dir = evaluated
    [reason] = plots.render_errors_3d([(vtk_dir / "cube_level2.vtu", tmp_path / "v.png")],
                                      "error_nn")
    if reason is not None:
        pytest.skip(reason)
    _check_png(tmp_path / "v.png")


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tables, self.scripts = [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        self.tables += tag == "table"
        self.scripts += tag == "script"


def test_report_shows_tables_and_relative_figure_paths(evaluated, tmp_path):
    result, slices, _ = evaluated
    figures = plots.make_figures(result.to_dict(), tmp_path / "plots",
                                 histories=result.histories, slices=slices)
    page = write_report(tmp_path / "index.html", result.to_dict(), figures,
                        figure_prefix="plots/")
    text = page.read_text()
    parser = _Collector()
    parser.feed(text)
    assert parser.scripts == 0 and parser.tables == 5  # + the fastest FEM at equal error
    assert len(parser.images) == len(figures["figures"])
    for src in parser.images:
        assert not Path(src).is_absolute() and (tmp_path / src).is_file()
    fem_error = result.records[0]["fem"]["l2_error"]
    assert f"{fem_error:.3e}" in text
    assert re.search(r"Reference: the exact solution", text)


def test_several_3d_views_render_in_one_child_each_whole(evaluated, tmp_path, monkeypatch):
    """One child renders every view; a child that dies leaves no PNG and one line per view."""
    _, _, vtk_dir = evaluated
    started = []
    real_run = plots.subprocess.run

    def counted(command, **kwargs):
        started.append(command)
        return real_run(command, **kwargs)

    monkeypatch.setattr(plots.subprocess, "run", counted)
    views = [(vtk_dir / "cube_level2.vtu", tmp_path / f"v{k}.png") for k in range(2)]
    reasons = plots.render_errors_3d(views, "error_nn")
    assert len(started) == 1 and len(reasons) == 2
    if reasons[0] is not None:
        pytest.skip(reasons[0])
    assert reasons == [None, None]
    for _, png in views:
        _check_png(png)
    monkeypatch.setattr(plots, "_RENDER_SCRIPT", "import os; os.abort()")
    failed = plots.render_errors_3d([(vtu, tmp_path / "w" / png.name) for vtu, png in views],
                                    "error_nn")
    assert failed[0] == failed[1] and failed[0].startswith("3D view skipped")
    assert not list((tmp_path / "w").iterdir())
