"""Adding an architecture is one module (its nn.Module and its config) plus one registry line,
nothing in cli/: this file is such a module. It registers a toy architecture with a field of
its own and fits it from the command line with that field's flag."""

import json
from dataclasses import dataclass

import pytest
from torch import Tensor
from typer.testing import CliRunner

from surrogate.core.typed_config import setting
from surrogate.models.config import MODEL, ModelConfig
from surrogate.models.networks import SteppingNetwork
from surrogate.models.registry import ARCHITECTURES, register_architecture

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("single_torch_thread")


@dataclass(frozen=True, kw_only=True)
class ToyConfig(ModelConfig):
    """ResNet steps whose input layer's step is scaled by ``toy_scale``."""

    arch: str = "toy"
    toy_scale: float = setting(1.0, doc="Scale s of the input layer's step s τ^[0].",
                               panel=MODEL, gt=0.0)


class ToyNet(SteppingNetwork):
    """y^[1] = s τ^[0] σ(W^[0] u + b^[0]);  y^[ℓ] = y^[ℓ-1] + τ^[ℓ-1] σ(W^[ℓ-1] y^[ℓ-1] + b)."""

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        y = self.config.toy_scale * taus[0] * self.activation(self.layers[0](x))
        for k in range(1, len(self.layers)):
            y = y + taus[k] * self.activation(self.layers[k](y))
        return y


@pytest.fixture
def toy_app():
    """The app built after the toy's one registry line (taken out again afterwards)."""
    register_architecture("toy", ToyConfig, ToyNet)
    try:
        from surrogate.cli.app import build_app

        yield build_app()
    finally:
        ARCHITECTURES.pop("toy")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from surrogate.cli.app import app

    path = tmp_path_factory.mktemp("toy-arch") / "maxwell.h5"
    result = runner.invoke(app, ["gen-data", "maxwell", "-n", "120", "--seed", "2", "-o",
                                 str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


def test_a_registered_architecture_fits_with_its_own_flag(toy_app, data, tmp_path):
    from surrogate.runs.load import load_run

    out = tmp_path / "toy"
    result = runner.invoke(toy_app, ["fit", str(data), "--arch", "toy", "--toy-scale", "3",
                                     "--depth", "2", "--width", "4", "--epochs", "3", "-o",
                                     str(out), "-q"])
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert config["model"]["arch"] == "toy" and config["model"]["toy_scale"] == 3.0
    run = load_run(out)
    assert isinstance(run.model, ToyNet) and run.model.config.toy_scale == 3.0


def test_the_toy_flag_is_scoped_to_the_toy_and_listed_in_the_help(toy_app, data, tmp_path):
    result = runner.invoke(toy_app, ["fit", str(data), "--toy-scale", "3", "-o",
                                     str(tmp_path / "r"), "-q"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --toy-scale applies to arch toy, not 'resnet'"
    result = runner.invoke(toy_app, ["fit", "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    assert "--toy-scale" in result.stdout and "toy: scale s of the input layer's step" in \
        result.stdout


def test_a_field_that_collides_with_another_architectures_flag_is_refused():
    from surrogate.cli.commands.train import model_group
    from surrogate.cli.config_options import OptionCollision, group_options

    @dataclass(frozen=True, kw_only=True)
    class ClashConfig(ModelConfig):
        arch: str = "clash"
        gamma: float = setting(0.5, doc="Another γ than frac-dnn's.", panel=MODEL)

    register_architecture("clash", ClashConfig, ToyNet)
    try:
        with pytest.raises(OptionCollision, match="--gamma would set FractionalDNNConfig.gamma"):
            group_options(model_group())
    finally:
        ARCHITECTURES.pop("clash")
