"""The one-off training cost of break-even N* (metrics ``train_seconds``) over resumed fits."""

import pytest

from surrogate.runs.checkpoints import load_checkpoint
from surrogate.training.loop import TrainingInterrupted, fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

MODEL = {"arch": "resnet", "width": 8, "depth": 2}


@pytest.fixture(scope="module")
def maxwell_file(tmp_path_factory):
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    path = tmp_path_factory.mktemp("data") / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=200, seed=4), path)
    return path


def test_resumed_fit_counts_the_training_time_of_the_earlier_calls(maxwell_file, tmp_path):
    first = fit(maxwell_file, MODEL, {"epochs": 3, "batch_size": 50}, tmp_path / "r")
    before = load_checkpoint(tmp_path / "r" / "checkpoint.pt")["train_seconds"]
    assert before == first.metrics["wall_time_s"] > 0
    second = fit(maxwell_file, None, {"epochs": 6}, tmp_path / "r", resume=True)
    metrics = second.metrics
    # train_seconds = the checkpoint's cumulative time + this call's whole fit
    assert metrics["train_seconds"] == pytest.approx(before + metrics["fit_seconds"],
                                                     rel=1e-12)
    # never below the time spent in all six epochs
    assert metrics["train_seconds"] >= sum(row["seconds"] for row in second.history)
    assert metrics["wall_time_s"] == pytest.approx(sum(row["seconds"] for row in second.history),
                                                   rel=1e-9)


def test_an_interrupted_and_resumed_fit_keeps_the_time_before_the_interrupt(maxwell_file,
                                                                           tmp_path):
    def stop_at_2(record):
        if record["epoch"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(TrainingInterrupted):
        fit(maxwell_file, MODEL, {"epochs": 4, "batch_size": 50}, tmp_path / "c",
            on_epoch=stop_at_2)
    before = load_checkpoint(tmp_path / "c" / "checkpoint.pt")["train_seconds"]
    resumed = fit(maxwell_file, None, None, tmp_path / "c", resume=True)
    assert resumed.metrics["train_seconds"] == pytest.approx(
        before + resumed.metrics["fit_seconds"], rel=1e-12)
    assert resumed.metrics["train_seconds"] > resumed.metrics["fit_seconds"]
