"""One tiny trained separable run of the ``radial`` family, shared by the UQ tests.

24 problems × 100 points, a DeepONet (basis 8, width 16, depth 2) with ``params`` inputs
trained 40 epochs: on the training domain (the cylinder) its energy correlates with the
exact one at ρ ≈ 0.95 — a modest surrogate, which is all the estimators' tests need.
"""

import pytest


@pytest.fixture(scope="session")
def radial_run(tmp_path_factory):
    import torch

    from surrogate.datasets import MaxwellFamilyRecipe, generate_dataset
    from surrogate.runs.load import load_run
    from surrogate.training.loop import fit

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        root = tmp_path_factory.mktemp("uq_radial")
        generate_dataset(MaxwellFamilyRecipe(family="radial", problems=24, points=100, seed=1,
                                             n_volume=4, n_boundary=2), root / "radial.h5")
        fit(root / "radial.h5", {"arch": "deeponet", "inputs": "params", "basis": 8,
                                 "width": 16, "depth": 2},
            {"epochs": 40, "batch_size": 64, "lr": 3e-3}, root / "run")
    finally:
        torch.set_num_threads(threads)
    return load_run(root / "run")
