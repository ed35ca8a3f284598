"""The one TOML reader: tomllib, or tomli where tomllib is missing (Python 3.10)."""

import sys
import types

import pytest

from surrogate.core.errors import DataFormatError
from surrogate.core.toml_files import read_toml
from surrogate.training.config import TrainConfig


@pytest.fixture
def python_310(monkeypatch):
    """No tomllib (as on Python 3.10); a tomli module with the same API instead."""
    import tomllib

    tomli = types.ModuleType("tomli")
    tomli.loads, tomli.TOMLDecodeError = tomllib.loads, tomllib.TOMLDecodeError
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", tomli)


def test_train_config_loads_from_toml_without_tomllib(python_310, tmp_path):
    path = tmp_path / "fit.toml"
    path.write_text(TrainConfig(lr=0.05, epochs=7, optimizer="sgd").to_toml())
    config = TrainConfig.from_dict(read_toml(path))
    assert (config.lr, config.epochs, config.optimizer) == (0.05, 7, "sgd")
    assert TrainConfig.from_toml('[train]\nbatch_size = 16\n').batch_size == 16


def test_without_tomllib_and_tomli_the_error_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)
    path = tmp_path / "fit.toml"
    path.write_text("lr = 0.1\n")
    with pytest.raises(DataFormatError, match="needs tomli: pip install tomli") as info:
        read_toml(path)
    assert "\n" not in str(info.value)


def test_missing_and_invalid_files_are_one_line(tmp_path):
    with pytest.raises(DataFormatError, match="does not exist"):
        read_toml(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("lr = = 1\n")
    with pytest.raises(DataFormatError, match="not valid TOML") as info:
        read_toml(bad)
    assert "\n" not in str(info.value)
