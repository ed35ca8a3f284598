"""The thread count of a fit's training steps: one thread below 2**19 widest-layer outputs
per mini-batch, torch's count above, the ``threads`` option over both, restored afterwards."""


import pytest
import torch
from torch import nn

import surrogate
from surrogate.core.errors import InputError
from surrogate.training.threads import (
    PARALLEL_STEP_ELEMENTS,
    chosen_threads,
    step_elements,
    widest_layer,
)


def test_the_widest_layer_and_the_step_size():
    model = nn.Sequential(nn.Linear(7, 50), nn.Linear(50, 128), nn.Linear(128, 3))
    assert widest_layer(model) == 128
    assert step_elements(9600, None, model) == 9600 * 128  # full batch
    assert step_elements(9600, 1024, model) == 1024 * 128
    assert step_elements(100, 1024, model) == 100 * 128  # a batch larger than the split


def test_one_thread_below_the_threshold_all_from_it():
    assert chosen_threads(PARALLEL_STEP_ELEMENTS - 1, 16) == 1
    assert chosen_threads(PARALLEL_STEP_ELEMENTS, 16) == 16
    # the recipes measured in surrogate.training.threads fall where they ran fastest
    assert chosen_threads(1024 * 128, 2) == 1  # family params recipe
    assert chosen_threads(8400 * 50, 2) == 1  # demo Frac-DNN, full batch
    assert chosen_threads(8400 * 128, 2) == 2  # full-batch ResNet of width 128


@pytest.mark.parametrize("option, expected, reason", [
    (None, 1, "step size (rows × width = "), (2, 2, "threads option")])
def test_fit_trains_on_the_chosen_count_records_it_and_restores_torch(
        data_file, tmp_path, option, expected, reason):
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        run = surrogate.fit(data_file, {"width": 8}, {"epochs": 2, "threads": option},
                            tmp_path / "run")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    threads = run.metrics["threads"]
    assert run.metrics["num_threads"] == threads["num_threads"] == expected
    assert threads["chosen_by"].startswith(reason)
    assert threads["step_elements"] > 0


def test_threads_below_one_are_refused(data_file, tmp_path):
    with pytest.raises(InputError, match="threads"):
        surrogate.fit(data_file, {"width": 8}, {"epochs": 1, "threads": 0}, tmp_path / "run")
