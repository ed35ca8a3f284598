"""``surrogate serve RUN`` answers umbridge's client for both models on localhost, then stops
by itself (``--max-seconds``, counted from when its models are ready)."""

import json
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from surrogate.fem.families import get_family
from surrogate.uq import SurrogateQuantities, fem_quantities, parse_quantities

pytestmark = pytest.mark.usefixtures("single_torch_thread")
MAX_SECONDS = 8
QOI = ["energy", "probe:0.2,0.1,0.5"]


def _free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _wait_for(url, proc, seconds=120):
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/Info", timeout=2) as answer:
                return json.loads(answer.read())
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"no server at {url}: {proc.stderr.read() if proc.poll() else ''}")


def test_both_models_answer_umbridges_client(radial_run):
    umbridge = pytest.importorskip("umbridge")
    port = _free_port()
    url = f"http://localhost:{port}"
    args = [sys.executable, "-m", "surrogate", "serve", str(radial_run.path), "--qoi", QOI[0],
            "--qoi", QOI[1], "--fem-order", "0", "--fem-level", "1", "--domain", "cylinder",
            "--port", str(port), "--max-seconds", str(MAX_SECONDS), "--quiet"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(url, proc)["models"] == ["surrogate", "fem"]
        mu = [1.2, 0.8, 1.5, 1.0, 0.5, -0.3]
        answers = {name: umbridge.HTTPModel(url, name) for name in ("surrogate", "fem")}
        for model in answers.values():
            assert model.get_input_sizes() == [6] and model.get_output_sizes() == [4]
        values = {name: np.array(model([mu])[0]) for name, model in answers.items()}
        # the same numbers as the models built here
        fem = fem_quantities(get_family("radial"), parse_quantities(QOI), order=0, level=1,
                             domain="cylinder")
        np.testing.assert_allclose(values["fem"], fem(np.array([mu]))[0], rtol=1e-10)
        here = SurrogateQuantities.from_run(radial_run, fem.points)(np.array([mu]))[0]
        np.testing.assert_allclose(values["surrogate"], here, rtol=1e-5, atol=1e-6)
        assert proc.wait(timeout=MAX_SECONDS + 30) == 0  # stops by itself
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
