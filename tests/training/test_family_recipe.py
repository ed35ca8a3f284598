"""A problem-family dataset trains on the family recipe unless the user says otherwise."""

import json

import pytest

from surrogate.models.stepping_configs import ResNetConfig
from surrogate.training.config import TrainConfig
from surrogate.training.family_recipe import FAMILY_RECIPES
from surrogate.training.loop import fit

from .conftest import gen_data

pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def family_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("radial") / "radial.h5"
    gen_data(path, "maxwell-family", "--family", "radial", "--problems", "5", "--points", "40",
             "--n-volume", "4", "--n-boundary", "2", "--seed", "1")
    return path


@pytest.fixture(scope="module")
def single_file(data_file):
    return data_file  # the shared 60-sample `gen-data maxwell` file


def _config(run_dir):
    return json.loads((run_dir / "config.json").read_text())


def test_the_recipe_is_the_one_of_the_results_table():
    """examples/family_maxwell.sh: resnet 6 × 128, SiLU, τ from 1, quadratic output, Adam
    3e-3 -> 1e-5 cosine; params 40 × 1,024, fields 80 × 2,048, pointwise 10 × 2,048."""
    params = FAMILY_RECIPES["params"]
    assert params.arch == "resnet"
    assert dict(params.model) == {"depth": 6, "width": 128, "activation": "silu",
                                  "tau_init": 1.0, "quadratic_output": True}
    assert dict(params.train) == {"optimizer": "adam", "lr": 3e-3, "lr_min": 1e-5,
                                  "schedule": "cosine", "epochs": 40, "batch_size": 1024}
    assert (FAMILY_RECIPES["fields"].train["epochs"],
            FAMILY_RECIPES["fields"].train["batch_size"]) == (80, 2048)
    assert (FAMILY_RECIPES["pointwise"].train["epochs"],
            FAMILY_RECIPES["pointwise"].train["batch_size"]) == (10, 2048)


def test_a_family_fit_takes_the_recipe_for_what_was_not_given(family_file, tmp_path):
    run = fit(family_file, {"inputs": "params", "width": 8}, {"epochs": 1},
              tmp_path / "fam")
    config = _config(tmp_path / "fam")
    model, train = config["model"], config["train"]
    assert (model["arch"], model["depth"], model["width"]) == ("resnet", 6, 8)
    assert model["activation"] == "silu" and model["tau_init"] == 1.0
    assert model["quadratic_output"] is True and model["tau"] is None
    assert (train["epochs"], train["batch_size"]) == (1, 1024)
    assert (train["lr"], train["lr_min"], train["schedule"]) == (3e-3, 1e-5, "cosine")
    applied = config["extra"]["defaults_applied"]
    assert applied["recipe"] == "family-params"
    assert applied["model"] == {"depth": 6, "activation": "silu", "tau_init": 1.0,
                                "quadratic_output": True}
    assert applied["train"] == {"optimizer": "adam", "lr": 3e-3, "lr_min": 1e-5,
                                "schedule": "cosine", "batch_size": 1024}
    assert run.extra["defaults_applied"] == applied


def test_given_options_and_typed_configs_win_over_the_recipe(family_file, tmp_path):
    fit(family_file, {"inputs": "fields", "arch": "frac-dnn", "width": 8, "depth": 2,
                      "code_size": 3, "encoder_width": 5},
        {"epochs": 1, "lr": 1e-2, "batch_size": None}, tmp_path / "other-arch")
    config = _config(tmp_path / "other-arch")
    assert config["model"]["activation"] == "smooth-relu"  # model recipe is resnet's only
    assert config["train"]["batch_size"] is None and config["train"]["lr"] == 1e-2
    assert config["extra"]["defaults_applied"]["recipe"] == "family-fields"
    assert config["extra"]["defaults_applied"]["model"] == {}
    assert config["extra"]["defaults_applied"]["train"]["lr_min"] == 1e-5

    typed_model = ResNetConfig(arch="resnet", in_features=9, out_features=3, width=8,
                               inputs="params")
    fit(family_file, typed_model, TrainConfig(epochs=1, batch_size=64), tmp_path / "typed")
    config = _config(tmp_path / "typed")
    assert config["model"]["depth"] == 2 and config["train"]["lr"] == 1e-2
    assert config["extra"]["defaults_applied"] == {
        "recipe": "family-params", "source": config["extra"]["defaults_applied"]["source"],
        "model": {}, "train": {}}


def test_a_single_problem_dataset_keeps_the_plain_defaults(single_file, tmp_path):
    fit(single_file, {"width": 8}, {"epochs": 1}, tmp_path / "single")
    config = _config(tmp_path / "single")
    assert config["model"]["depth"] == 2 and config["train"]["batch_size"] is None
    assert "defaults_applied" not in config["extra"]


def test_the_command_line_passes_only_given_options_so_the_recipe_applies(family_file,
                                                                          tmp_path):
    """The README's family line, shortened to one epoch of a narrow network."""
    from typer.testing import CliRunner

    from surrogate.cli.app import app

    out = tmp_path / "cli"
    result = CliRunner().invoke(app, ["fit", str(family_file), "--arch", "resnet", "--inputs",
                                      "params", "--quadratic-output", "--epochs", "1",
                                      "--width", "8", "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    config = _config(out)
    assert (config["model"]["depth"], config["train"]["batch_size"]) == (6, 1024)
    applied = config["extra"]["defaults_applied"]
    assert "quadratic_output" not in applied["model"] and "epochs" not in applied["train"]
    resumed = CliRunner().invoke(app, ["fit", str(family_file), "-o", str(out), "--resume",
                                       "--epochs", "2", "--quiet"])
    assert resumed.exit_code == 0, resumed.output
    assert _config(out)["extra"]["defaults_applied"] == applied


def test_the_separable_model_takes_its_own_recipe_and_params_inputs(family_file, tmp_path):
    """--arch deeponet alone: params inputs, the issue 29 recipe (trunk 3 × 64, p = 32,
    batches of 256 from lr 5e-3, the head solved by least squares after the last epoch);
    the ResNet recipe is not applied to it."""
    from surrogate.training.family_recipe import ARCH_RECIPES, SEPARABLE_EPOCHS

    run = fit(family_file, {"arch": "deeponet", "basis": 4}, {"epochs": 1},
              tmp_path / "sep")
    config = _config(tmp_path / "sep")
    model, train = config["model"], config["train"]
    assert (model["inputs"], model["depth"], model["width"], model["basis"]) == \
        ("params", 3, 64, 4)
    assert (train["batch_size"], train["lr"], train["epochs"]) == (256, 5e-3, 1)
    applied = config["extra"]["defaults_applied"]
    assert applied["recipe"] == "family-deeponet-params" and "issue 29" in applied["source"]
    assert "basis" not in applied["model"] and applied["model"]["inputs"] == "params"
    recipe = ARCH_RECIPES[("deeponet", "params")]
    assert recipe.train["epochs"] == SEPARABLE_EPOCHS and recipe.model["basis"] == 32
    assert recipe.train["head_solve_epochs"] == 1 and train["head_solve_epochs"] == 1
    assert run.model_config.arch == "deeponet"
