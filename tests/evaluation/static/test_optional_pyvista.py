"""pyvista is optional (extra ``[viz]``): without it only the 3-D figure is skipped, with a note."""

import sys

from surrogate.evaluation.static.plots import make_figures, render_errors_3d

NOTE = "3D view skipped: pyvista is not installed (pip install 'surrogate[viz]')"


def test_render_without_pyvista_is_one_line_note(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyvista", None)  # `import pyvista` now fails
    png = tmp_path / "plots" / "error_3d_cube.png"
    assert render_errors_3d([(tmp_path / "missing.vtu", png)], "error_nn") == [NOTE]
    assert not png.exists()


def test_figures_without_pyvista_skip_only_the_3d_view(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyvista", None)
    evaluation = {"records": [], "runs": {"resnet": {"taus": [0.1, 0.2]}}}
    result = make_figures(evaluation, tmp_path, vtu_for_3d={"cube": tmp_path / "cube.vtu"})
    assert result["skipped"] == [NOTE]
    assert list(result["figures"]) == ["taus"]
    assert (tmp_path / "taus.png").stat().st_size > 0
