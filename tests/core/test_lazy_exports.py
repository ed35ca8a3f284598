"""Lazy package exports (PEP 562): every exported name resolves; nothing loads before use."""

import importlib
import subprocess
import sys
import types

import pytest

from surrogate.core.lazy_exports import lazy_exports

PACKAGES = ("surrogate", "surrogate.datasets", "surrogate.fem", "surrogate.fem.families",
            "surrogate.runs", "surrogate.training", "surrogate.evaluation.static",
            "surrogate.evaluation.sequence", "surrogate.evaluation.family")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves_to_its_module_object(package):
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__) or module.__all__[0] == "__version__"
    for name in module.__all__:
        value = getattr(module, name)
        owner = getattr(value, "__module__", None)
        if owner is not None and isinstance(value, type | types.FunctionType):
            assert owner.startswith(package), f"{package}.{name} comes from {owner}"
    assert set(module.__all__) <= set(dir(module))


def test_a_name_loads_its_module_on_first_access_only():
    code = ("import sys, surrogate.datasets as d\n"
            "before = 'surrogate.datasets.reader' in sys.modules\n"
            "d.read_dataset\n"
            "print(before, 'surrogate.datasets.reader' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.split() == ["False", "True"]


def test_names_unknown_names_and_duplicates():
    import json.decoder

    names, getattr_, dir_ = lazy_exports("json", {"decoder": ("JSONDecoder", "JSONDecodeError")})
    assert names == ["JSONDecodeError", "JSONDecoder"]
    assert getattr_("JSONDecoder") is json.decoder.JSONDecoder
    assert {"JSONDecoder", "JSONDecodeError", "dumps"} <= set(dir_())
    with pytest.raises(AttributeError, match="'json' has no attribute 'nope'"):
        getattr_("nope")
    with pytest.raises(ValueError, match="'dumps' exported by both 'a' and 'b'"):
        lazy_exports("json", {"a": ("dumps",), "b": ("dumps",)})
