"""Scale-out of ``maxwell-td``: the same bytes with any executor, resume after a crash."""

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.executors import (
    blas_threads_per_worker,
    dask_executor,
    open_executor,
    process_pool,
)
from surrogate.datasets.parallel import ordered_map
from surrogate.datasets.partial_file import partial_path
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
from surrogate.datasets.sequence import maxwell_td_stream as stream
from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe, build_setup, simulate_samples
from surrogate.datasets.streaming import GenerationInterrupted

SHARED = {"level": 2, "n": 90, "steps": 30, "dt": 0.1, "probes": 3, "n_materials": 4,
          "signal": "mixed", "seed": 11, **N0_TD_SETTINGS}  # the fast N0 path
OWN = {**SHARED, "n": 40, "n_materials": 40}  # every sample its own material


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks of a few rows, so that tiny recipes still write several of them."""
    monkeypatch.setattr("surrogate.datasets.streaming.BLOCK_BYTES", 20_000)


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """Reference files of the two recipes, written in this process (no executor)."""
    folder = tmp_path_factory.mktemp("serial")
    with pytest.MonkeyPatch.context() as patch:  # the function-scoped fixtures' settings
        patch.setenv("SOURCE_DATE_EPOCH", "1700000000")
        patch.setattr("surrogate.datasets.streaming.BLOCK_BYTES", 20_000)
        for name, values in (("shared", SHARED), ("own", OWN)):
            generate_dataset(MaxwellTDRecipe(**values), folder / f"{name}.h5")
    return folder


def test_ordered_map_keeps_the_order_and_bounds_the_tasks_in_flight():
    running, peak, lock = [0], [0], threading.Lock()

    def task(i):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.002 * ((7 * i) % 5))
        with lock:
            running[0] -= 1
        return i * i

    with ThreadPoolExecutor(4) as executor:
        results = ordered_map(task, ((i,) for i in range(40)), executor, max_in_flight=3)
        assert list(results) == [i * i for i in range(40)]
    assert peak[0] <= 3
    assert list(ordered_map(task, ((i,) for i in range(5)))) == [0, 1, 4, 9, 16]


def test_streamed_rows_equal_simulate_samples_bitwise(serial):
    recipe = MaxwellTDRecipe(**SHARED)
    data = read_dataset(serial / "shared.h5")
    inputs, targets = simulate_samples(build_setup(recipe), np.arange(recipe.n))
    assert np.array_equal(data.inputs, inputs) and np.array_equal(data.targets, targets)


def test_two_process_pool_workers_write_the_serial_file(serial, tmp_path):
    with open_executor(workers=2) as executor:
        for name, values in (("shared", SHARED), ("own", OWN)):
            generate_dataset(MaxwellTDRecipe(**values), tmp_path / f"{name}.h5",
                             executor=executor, max_in_flight=3)
    for name in ("shared", "own"):
        assert _sha256(tmp_path / f"{name}.h5") == _sha256(serial / f"{name}.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["own.h5", "shared.h5"]


def test_two_dask_local_cluster_workers_write_the_serial_file(serial, tmp_path):
    pytest.importorskip("distributed")
    with dask_executor(local_workers=2, processes=False) as executor:
        generate_dataset(MaxwellTDRecipe(**OWN), tmp_path / "own.h5", executor=executor)
    assert _sha256(tmp_path / "own.h5") == _sha256(serial / "own.h5")


def _crash_after(calls: int):
    """A progress callback that raises once it has been called ``calls`` times."""
    count = [0]

    def progress(done, total, description):
        count[0] += 1
        if count[0] > calls:
            raise RuntimeError("simulated crash")

    return progress


@pytest.mark.parametrize("name, values, calls", [("own", OWN, 25), ("shared", SHARED, 10)])
def test_resume_after_a_crash_writes_the_same_file(serial, tmp_path, monkeypatch, name, values,
                                                   calls):
    recipe, out = MaxwellTDRecipe(**values), tmp_path / f"{name}.h5"
    with pytest.raises(RuntimeError, match="simulated crash"):
        generate_dataset(recipe, out, on_progress=_crash_after(calls))
    assert not out.exists() and partial_path(out).exists()
    with h5py.File(partial_path(out), "r") as f:
        kept = f["samples"]["checksums"].shape[0]
        cached = f["cache"]["key"].shape[0] if "cache" in f else 0
    assert kept > 0 or cached > 0
    runs = []
    monkeypatch.setattr(stream, "worker_response",
                        lambda recipe, g, run=stream.worker_response: runs.append(g)
                        or run(recipe, g))
    with open_executor(workers=1) as executor:
        generate_dataset(recipe, out, executor=executor, resume=True)
    assert _sha256(out) == _sha256(serial / f"{name}.h5")
    assert not partial_path(out).exists()
    if name == "shared":  # the cached impulse responses were not simulated again
        assert len(runs) == recipe.n_materials - cached


def test_resume_starts_again_from_a_corrupted_block(serial, tmp_path):
    recipe, out = MaxwellTDRecipe(**OWN), tmp_path / "own.h5"
    with pytest.raises(RuntimeError):
        generate_dataset(recipe, out, on_progress=_crash_after(30))
    with h5py.File(partial_path(out), "r+", libver="latest") as f:
        assert f["samples"]["checksums"].shape[0] >= 2
        f["samples"]["targets"][-1, 5, 0] += 1.0  # the last written block no longer matches
    generate_dataset(recipe, out, resume=True)
    assert _sha256(out) == _sha256(serial / "own.h5")


def test_resume_refuses_a_partial_file_of_another_recipe(tmp_path):
    out = tmp_path / "own.h5"
    with pytest.raises(RuntimeError):
        generate_dataset(MaxwellTDRecipe(**OWN), out, on_progress=_crash_after(30))
    with pytest.raises(InputError, match=r"another recipe \(differs in seed\)"):
        generate_dataset(MaxwellTDRecipe(**{**OWN, "seed": 12}), out, resume=True)
    partial_path(out).write_bytes(b"not hdf5")
    with pytest.raises(InputError, match="unreadable"):
        generate_dataset(MaxwellTDRecipe(**OWN), out, resume=True)
    generate_dataset(MaxwellTDRecipe(**OWN), out)  # without --resume: starts again
    assert not partial_path(out).exists()


def test_an_interrupt_keeps_the_partial_file(tmp_path):
    out = tmp_path / "own.h5"

    def progress(done, total, description):
        if done >= 30:
            raise KeyboardInterrupt

    with pytest.raises(GenerationInterrupted) as stop:
        generate_dataset(MaxwellTDRecipe(**OWN), out, on_progress=progress)
    assert stop.value.partial == partial_path(out) and 0 < stop.value.rows < OWN["n"]
    assert not out.exists()


@pytest.mark.slow
def test_resume_after_the_process_was_killed(serial, tmp_path):
    """SIGKILL (no cleanup at all) while the partial file is being written; SWMR keeps it
    readable and the resumed run writes the reference file."""
    out = tmp_path / "own.h5"
    code = ("import surrogate.datasets.streaming as s; s.BLOCK_BYTES = 20_000\n"
            "import time\n"
            "from surrogate.datasets import generate_dataset\n"
            "from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe\n"
            f"values = {OWN!r}\n"
            "slow = lambda done, total, what: time.sleep(0.2)\n"
            f"generate_dataset(MaxwellTDRecipe(**values), {str(out)!r}, on_progress=slow)\n")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with h5py.File(partial_path(out), "r", libver="latest", swmr=True) as f:
                    if f["samples"]["checksums"].shape[0] >= 2:
                        break
            except (OSError, KeyError):
                pass
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL and not out.exists()
    generate_dataset(MaxwellTDRecipe(**OWN), out, resume=True)
    assert _sha256(out) == _sha256(serial / "own.h5")


def _blas_pools() -> list[tuple[str, int]]:
    import scipy.linalg  # noqa: F401  (scipy's own OpenBLAS, loaded after the worker started)
    from threadpoolctl import threadpool_info

    return sorted((p["filepath"], p["num_threads"]) for p in threadpool_info()
                  if p["user_api"] == "blas")


def test_pool_workers_share_the_cores_among_their_blas_threads(monkeypatch):
    # N workers with one BLAS thread per core each ran N² threads on N cores: a nonlinear
    # cavity sequence took 85 s instead of 14.6 s with two workers on two cores
    monkeypatch.setattr("surrogate.core.thread_settings.available_cpus", lambda: 4)
    assert [blas_threads_per_worker(w) for w in (1, 2, 3, 4, 8)] == [4, 2, 1, 1, 1]
    with process_pool(8) as pool:
        pools = pool.submit(_blas_pools).result()
    assert pools and all(threads == 1 for _, threads in pools)


def test_executor_options_are_checked_in_one_line(monkeypatch):
    with pytest.raises(InputError, match="choose one of --workers, --scheduler"):
        with open_executor(workers=2, scheduler="tcp://127.0.0.1:1"):
            pass
    with pytest.raises(InputError, match="expected local:N"):
        with open_executor(dask_cluster="remote:2"):
            pass
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    with pytest.raises(InputError) as error:
        with open_executor(dask_cluster="local:2"):
            pass
    assert str(error.value) == "Dask is not installed: pip install surrogate[distributed]"


def test_other_kinds_refuse_workers_and_resume(tmp_path):
    from surrogate.datasets import MaxwellRecipe

    with pytest.raises(InputError, match="apply to maxwell-td"):
        generate_dataset(MaxwellRecipe(n=10), tmp_path / "m.h5", resume=True)
