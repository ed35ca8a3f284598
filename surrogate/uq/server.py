"""A UM-Bridge server of a family run's two models, ``surrogate`` and ``fem``.

UM-Bridge (the ``umbridge`` package) is the UQ community's HTTP model protocol: MUQ, QMCPy,
tinyDA and PyMC call a model by name with an input list of vectors and get an output list.
Both models here take one input vector μ (p: the family's parameters, in its order) and
return one output vector of the quantities (q: :attr:`QuantityPoints.names`, then with
``field`` the 3 × nodes values of u at the mesh's nodes); ``fem``
solves with the backend, order and level the server was started with. umbridge serves on
every interface of the machine (its ``serve_models`` takes no host). ``max_seconds`` stops
the server by itself (SIGTERM to this process, which the web server turns into a clean
exit). The ``[uq]`` extra.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from surrogate.core.errors import InputError


def _umbridge() -> Any:
    """The umbridge package, or an InputError naming the extra."""
    try:
        import umbridge
    except ImportError:
        raise InputError("serving needs umbridge, which is not installed: "
                         "pip install 'surrogate[uq]'") from None
    return umbridge


def umbridge_model(name: str, inputs: int, outputs: int,
                   evaluate: Callable[[np.ndarray], np.ndarray]) -> Any:
    """An ``umbridge.Model`` named ``name``: [μ (inputs,)] -> [Q (outputs,)] by
    ``evaluate`` (μ (1, inputs) -> Q (1, outputs))."""
    umbridge = _umbridge()

    class Served(umbridge.Model):
        def get_input_sizes(self, config: dict | None = None) -> list[int]:
            return [inputs]

        def get_output_sizes(self, config: dict | None = None) -> list[int]:
            return [outputs]

        def __call__(self, parameters: list[list[float]], config: dict | None = None
                     ) -> list[list[float]]:
            mu = np.asarray(parameters[0], dtype=np.float64)[None, :]
            return [np.asarray(evaluate(mu), dtype=np.float64)[0].tolist()]

        def supports_evaluate(self) -> bool:
            return True

    return Served(name)


def serve(run: Any, options: Any, ready: Callable[[str], None] | None = None) -> None:
    """Serve ``surrogate`` and ``fem`` of ``run`` with ``options`` (a ServeOptions) until
    interrupted or ``options.max_seconds`` have passed; ``ready`` gets the URL first."""
    from surrogate.uq.study import study_models

    umbridge = _umbridge()
    run, family, fem, surrogate = study_models(run, options)
    p, q = len(family.param_names), len(fem.points.names) + 3 * fem.points.field_nodes
    models = [umbridge_model("surrogate", p, q, surrogate), umbridge_model("fem", p, q, fem)]
    if options.max_seconds is not None:
        timer = threading.Timer(options.max_seconds, os.kill, (os.getpid(), signal.SIGTERM))
        timer.daemon = True
        timer.start()
    if ready is not None:
        ready(f"http://localhost:{options.port}")
    umbridge.serve_models(models, port=options.port)


__all__ = ["umbridge_model", "serve"]
