"""Adding a FEM backend is one folder (``toy_backend/``) and one registry line: registered
here (undone after the test), it runs through ``fem convergence`` like a built-in one."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surrogate.core.errors import InputError
from surrogate.fem.convergence import convergence_study
from surrogate.fem.hcurl import registry
from surrogate.fem.hcurl.registry import Backend, lazy, register_backend

TOY = "toy_backend.solve"


@pytest.fixture
def toy(monkeypatch):
    """The toy backend registered for one test: BACKENDS is a copy the test may change."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.setattr(registry, "BACKENDS", dict(registry.BACKENDS))
    return register_backend(Backend("toy", {(0, "best"): lazy(f"{TOY}:best_approximation_toy"),
                                            (0, "solve"): lazy(f"{TOY}:solve_maxwell_toy")}))


def test_fem_convergence_runs_a_registered_toy_backend(toy):
    from surrogate.cli.app import build_app

    assert registry.backend_names() == ("skfem", "ngsolve", "toy")
    assert registry.FEM_BACKENDS == registry.backend_names()  # the live list
    result = CliRunner().invoke(build_app(), ["fem", "convergence", "--fem-backend", "toy",
                                              "--fem-order", "0", "--levels", "1-2", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    reference = convergence_study("cube", [1, 2], method="best", order=0, backend="skfem")
    assert [r["backend"] for r in rows] == ["toy", "toy"]
    assert [r["ndofs"] for r in rows] == [98, 604]
    for row, ref in zip(rows, reference, strict=True):  # the same space, the same numbers
        assert row["l2_error"] == ref["l2_error"]
        assert row["curl_l2_error"] == ref["curl_l2_error"]
    assert 0.8 <= rows[1]["l2_rate"] <= 1.2 and 0.8 <= rows[1]["curl_l2_rate"] <= 1.2


def test_the_toy_backend_is_checked_like_a_built_in_one(toy):
    with pytest.raises(InputError, match="unknown FEM order 1 for the toy backend"):
        registry.fem_method("toy", 1)
    with pytest.raises(InputError, match="unknown solver 'monolithic'; choose one of: auto, "
                                         "direct, iterative"):
        registry.check_solver("monolithic", "toy", 0)
    with pytest.raises(InputError, match="a FEM backend named 'toy' is registered already"):
        register_backend(toy)
    with pytest.raises(InputError, match=r"\(7, 'best'\)"):
        register_backend(Backend("bad", {(7, "best"): print}))
    with pytest.raises(InputError, match=r"time-domain orders must be of \(0, 1, 2, 3, 4, 5, 6\)"
                                         r", got \[7\]"):
        register_backend(Backend("bad", {(0, "best"): print}, time_domain={6: print, 7: print}))
    with pytest.raises(InputError, match=r"\(5, 'best'\)"):  # order 5: time domain only
        register_backend(Backend("bad", {(5, "best"): print}))


def test_registering_is_undone_after_a_test():
    assert "toy" not in registry.backend_names()
    assert registry.check_solver("monolithic", "skfem", 1) == "monolithic"
