"""The OpenMP wait policy: PASSIVE set before torch loads (command line and API), recorded in
metrics.json; a policy from the environment is kept."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import surrogate.core.thread_settings as thread_settings

# Runs the command line (argv) or the API (SURROGATE_API=1; =models-first: a torch module of
# surrogate imported before fit) with a watcher that notes the OpenMP wait policy at the
# moment torch is first imported.
WATCHED = textwrap.dedent("""
    import json, os, sys

    seen = {}

    class WatchTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" and "at_torch_import" not in seen:
                seen["at_torch_import"] = os.environ.get("OMP_WAIT_POLICY")
            return None

    sys.meta_path.insert(0, WatchTorch())
    try:
        if os.environ.get("SURROGATE_API"):
            if os.environ["SURROGATE_API"] == "models-first":
                import surrogate.models.activations  # imports torch
                assert "torch" in sys.modules
            import surrogate
            surrogate.fit(sys.argv[1], {"width": 8}, {"epochs": 2}, sys.argv[2])
        else:
            from surrogate.cli.app import main
            sys.argv = ["surrogate", *sys.argv[1:]]
            main()
    finally:
        with open(os.environ["WATCH_FILE"], "w") as fh:
            json.dump(seen, fh)
""")


def _watched_fit(data_file, out, tmp_path, api="", **env):
    watch = tmp_path / "watch.json"
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    environment.update({"OMP_NUM_THREADS": "2", "OMP_DISPLAY_ENV": "verbose",
                        "WATCH_FILE": str(watch), **env})
    if api:
        environment["SURROGATE_API"] = api
        args = [str(data_file), str(out)]
    else:
        args = ["fit", str(data_file), "--width", "8", "--epochs", "2", "-o", str(out), "-q"]
    done = subprocess.run([sys.executable, "-c", WATCHED, *args], env=environment,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    return json.loads(watch.read_text()), metrics, done.stderr


@pytest.mark.parametrize("api", ["", "fit", "models-first"])
def test_fit_runs_passive_set_before_torch_loads_and_records_it(data_file, tmp_path, api):
    seen, metrics, stderr = _watched_fit(data_file, tmp_path / "run", tmp_path, api=api)
    assert seen["at_torch_import"] == "PASSIVE"
    threads = metrics["threads"]
    assert threads["omp_wait_policy"] == "PASSIVE" and threads["set_by"] == "surrogate"
    # a tiny fit trains on one thread (surrogate.training.threads); the variable is recorded
    assert threads["num_threads"] == metrics["num_threads"] == 1
    assert threads["chosen_by"].startswith("step size")
    assert threads["OMP_NUM_THREADS"] == "2" and threads["cpus"] >= 1
    if "GOMP_SPINCOUNT = " in stderr:  # GNU OpenMP printed what it runs with: no spinning
        assert "GOMP_SPINCOUNT = '0'" in stderr


def test_a_policy_from_the_environment_is_kept(data_file, tmp_path):
    seen, metrics, stderr = _watched_fit(data_file, tmp_path / "run", tmp_path,
                                         OMP_WAIT_POLICY="ACTIVE")
    assert seen["at_torch_import"] == "ACTIVE"
    assert metrics["threads"]["omp_wait_policy"] == "ACTIVE"
    assert metrics["threads"]["set_by"] == "environment"


@pytest.fixture
def undecided(monkeypatch):
    """The module as before its first call, with no policy in the environment."""
    monkeypatch.setattr(thread_settings, "_wait_policy_set_by", None)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    return monkeypatch


def test_the_first_call_sets_passive_when_torch_is_not_loaded(undecided):
    undecided.delitem(sys.modules, "torch", raising=False)
    assert thread_settings.set_default_wait_policy() == thread_settings.SET_BY_SURROGATE
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    assert thread_settings.wait_policy()["omp_wait_policy"] == "PASSIVE"


def test_a_loaded_torch_is_reported_and_the_environment_left_alone(undecided):
    undecided.setitem(sys.modules, "torch", sys.modules.get("torch", object()))
    assert thread_settings.set_default_wait_policy() == thread_settings.TOO_LATE
    assert "OMP_WAIT_POLICY" not in os.environ
    assert thread_settings.wait_policy()["omp_wait_policy"] is None
