"""The one JSON writer: strict JSON (null for NaN/±inf), numpy values, atomic files."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from surrogate.core.json_files import json_safe, json_text, write_json_file


def _strict(text: str):
    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


class _TensorLike:
    """Anything with ``tolist()`` (a torch tensor, say) is written as its list."""

    def tolist(self):
        return [[1.5, math.nan]]


def test_non_finite_values_become_null_at_every_depth():
    payload = {"a": math.nan, "b": [1.0, -math.inf, (math.inf, 2)],
               "c": {"d": np.float32("nan"), "e": np.array([0.5, np.inf])},
               "f": _TensorLike()}
    assert json_safe(payload) == {"a": None, "b": [1.0, None, [None, 2]],
                                  "c": {"d": None, "e": [0.5, None]}, "f": [[1.5, None]]}


def test_numpy_scalars_paths_and_keys_become_plain_values():
    safe = json_safe({1: np.int64(7), "p": Path("runs/a"), "ok": np.bool_(True),
                      "x": np.float64(0.1), "m": np.arange(4).reshape(2, 2)})
    assert safe == {"1": 7, "p": "runs/a", "ok": True, "x": 0.1, "m": [[0, 1], [2, 3]]}
    assert type(safe["1"]) is int and type(safe["ok"]) is bool and type(safe["x"]) is float


def test_finite_payload_text_is_what_json_dumps_writes():
    payload = {"errors": [0.1, 2.5e-07, 1e300], "name": "τ-net", "n": 3, "none": None}
    assert json_text(payload) == json.dumps(payload, indent=2) + "\n"
    assert _strict(json_text({"x": math.nan})) == {"x": None}


def test_file_is_replaced_only_when_complete(tmp_path):
    path = write_json_file(tmp_path / "out" / "metrics.json", {"loss": math.inf, "epoch": 2})
    assert path == tmp_path / "out" / "metrics.json"
    assert _strict(path.read_text()) == {"loss": None, "epoch": 2}
    with pytest.raises(TypeError):
        write_json_file(path, {"bad": object()})
    assert _strict(path.read_text()) == {"loss": None, "epoch": 2}  # the old file stays
    assert sorted(p.name for p in path.parent.iterdir()) == ["metrics.json"]
