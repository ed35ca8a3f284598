"""The linear-response residual model (``--linear-response K``): its ℓ (eq. 1) is the FEM's
linear run of the piecewise linear source (the fields; the Joule power, quadratic, gets 0),
exactly at a grid value of σ₀ and the linear blend
of two runs between them; with a silent inner network the model predicts ℓ; a fitted run
saves, reloads and is evaluated with its bank; bad uses are one-line errors."""

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.sequence.linear_response_bank import (
    BANK_ORDER,
    BANK_SUBSTEPS,
    maxwell_nl_bank,
    response_bank,
)
from surrogate.datasets.sequence.nonlinear_cavity import MaxwellNLRecipe, build_setup
from surrogate.fem.nonlinear_newmark import nonlinear_run
from surrogate.fem.time_domain_operators.nonlinear_conduction import VaristorConductivity
from surrogate.models.linear_response import LinearResponseResidual
from surrogate.models.normalisation import Normalisation
from surrogate.models.registry import build_model, config_from_dict
from surrogate.runs.load import load_run
from surrogate.runs.predict import predict_array
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

TINY = {"level": 1, "fem_order": 1, "n": 8, "steps": 10, "dt": 0.2, "probes": 2,
        "substeps": 1, "richardson": False, "varistor_low": "0.5,0.5,0.5",
        "varistor_high": "1,1,1", "signal": "mixed", "amplitude": [0.5, 1.0],
        "sigma0": [0.5, 2.0], "split": [0.5, 0.25, 0.25], "seed": 5}
GRID = 3


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("linear_response")
    recipe = MaxwellNLRecipe(**TINY)
    generate_dataset(recipe, root / "mnl.h5")
    dataset = read_dataset(root / "mnl.h5")
    return {"root": root, "recipe": recipe, "dataset": dataset,
            "bank": maxwell_nl_bank(dataset.recipe, GRID, 2 * TINY["steps"])}


def _fem_linear(recipe: MaxwellNLRecipe, samples: np.ndarray, sigma0: float) -> np.ndarray:
    """The bank's FEM (order 2, 2 substeps) run of the linear medium σ₀ on the samples joined
    linearly: observed (T, C) at the output steps."""
    setup = build_setup(replace(recipe, fem_order=BANK_ORDER, substeps=BANK_SUBSTEPS))
    fine = np.interp(np.arange((len(samples) - 1) * BANK_SUBSTEPS + 1) / BANK_SUBSTEPS,
                     np.arange(len(samples)), samples)
    region = setup.region.with_law(VaristorConductivity(sigma0, math.inf))
    run = nonlinear_run(setup.steppers[0].with_conduction(region), setup.system.load,
                        -np.diff(fine), setup.system.observe)
    return np.column_stack([run.fields, 0.0 * run.joule])[::BANK_SUBSTEPS]  # Joule: ℓ = 0


def _model(data) -> LinearResponseResidual:
    dataset, bank = data["dataset"], data["bank"]
    inputs, targets = dataset.inputs, dataset.targets
    config = config_from_dict({"arch": "lem", "hidden": 4, "in_features": inputs.shape[-1],
                               "out_features": targets.shape[-1], "linear_response": GRID,
                               "response_steps": 2 * TINY["steps"]})
    model = build_model(config).double()
    model.set_bank(bank.grid, bank.ramp, Normalisation.fit(inputs, targets))
    return model


@pytest.mark.parametrize("where", ["grid", "between"])
def test_the_linear_response_is_the_fem_linear_run_of_the_joined_samples(data, where):
    model, inputs = _model(data), data["dataset"].inputs[:2].copy()
    grid = data["bank"].grid
    sigma0 = grid[1] if where == "grid" else 0.3 * grid[0] + 0.7 * grid[1]
    inputs[:, :, 1] = sigma0
    with torch.no_grad():
        ell = model.linear_response(torch.as_tensor(inputs)).numpy()
    for i in range(2):
        if where == "grid":
            expected = _fem_linear(data["recipe"], inputs[i, :, 0], sigma0)
        else:
            expected = (0.3 * _fem_linear(data["recipe"], inputs[i, :, 0], grid[0])
                        + 0.7 * _fem_linear(data["recipe"], inputs[i, :, 0], grid[1]))
        assert np.abs(ell[i]).max() > 1e-3
        np.testing.assert_allclose(ell[i], expected, rtol=0, atol=1e-10 * np.abs(expected).max())


def test_with_a_silent_inner_network_the_model_predicts_the_linear_response(data):
    model, dataset = _model(data), data["dataset"]
    torch.nn.init.zeros_(model.inner.readout.weight)
    torch.nn.init.zeros_(model.inner.readout.bias)
    normalisation = Normalisation.fit(dataset.inputs, dataset.targets)
    prediction = predict_array(model, normalisation, dataset.inputs)
    with torch.no_grad():
        ell = model.linear_response(torch.as_tensor(dataset.inputs)).numpy()
    np.testing.assert_allclose(prediction, ell, rtol=1e-12, atol=1e-12)


def test_a_fitted_run_reloads_with_its_bank_and_beats_the_bank_alone_on_its_training_data(data):
    root = data["root"]
    run = fit(root / "mnl.h5", {"arch": "cornn", "hidden": 8, "dt": 0.2, "linear_response": GRID},
              {"epochs": 300, "batch_size": 4, "lr": 1e-2}, root / "run")
    assert run.model_config.response_steps == 4 * TINY["steps"]
    loaded = load_run(root / "run")
    dataset = data["dataset"]
    again = predict_array(loaded.model, loaded.normalisation, dataset.inputs)
    np.testing.assert_allclose(again, predict_array(run.model, run.normalisation,
                                                    dataset.inputs), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(loaded.model.ramp.double().numpy()[:, :2 * TINY["steps"] + 1],
                               data["bank"].ramp,
                               rtol=1e-6, atol=1e-9)
    train, targets = dataset.split("train")
    with torch.no_grad():
        ell = loaded.model.linear_response(torch.as_tensor(train, dtype=torch.float32)).numpy()
    model_error = np.linalg.norm(again[dataset.splits["train"]] - targets)
    assert model_error < 0.75 * np.linalg.norm(ell - targets)


def test_bad_uses_are_one_line_errors(data, tmp_path):
    with pytest.raises(InputError, match="maxwell-nl"):
        response_bank({"kind": "maxwell-td"}, 3, 10)
    with pytest.raises(InputError, match=">= 2 grid points"):
        config_from_dict({"arch": "lem", "in_features": 3, "out_features": 7,
                          "linear_response": 1})
    with pytest.raises(InputError, match="read-out 'sequence'"):
        config_from_dict({"arch": "lem", "in_features": 3, "out_features": 7,
                          "linear_response": 3, "readout": "last"})
    model, inputs = _model(data), data["dataset"].inputs
    long = np.concatenate([inputs, inputs, inputs], axis=1)[:, :2 * TINY["steps"] + 2]
    with pytest.raises(InputError, match="refit with a longer bank"):
        model(torch.as_tensor(long))
    with pytest.raises(InputError, match="linear-response bank of shapes"):
        model.set_bank(np.arange(2.0), data["bank"].ramp, Normalisation.fit(inputs, inputs))
