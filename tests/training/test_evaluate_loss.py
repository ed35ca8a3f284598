"""The validation loss is J over the whole split, whatever the rows per forward pass."""

import pytest
import torch

from surrogate.models.registry import build_model, model_config
from surrogate.training.epoch import EVALUATION_ROWS, data_loss, evaluate_loss


@pytest.mark.parametrize("batch_size", [None, 1, 7, 64, 10_000])
def test_chunked_loss_equals_the_whole_split_loss(batch_size):
    torch.manual_seed(0)
    model = build_model(model_config(arch="resnet", in_features=3, out_features=2, width=6,
                                     depth=2)).double()
    x, y = torch.randn(300, 3, dtype=torch.float64), torch.randn(300, 2, dtype=torch.float64)
    with torch.no_grad():
        whole = float(data_loss(model(x), y))
    assert evaluate_loss(model, x, y, batch_size) == pytest.approx(whole, rel=1e-13)


def test_rows_go_in_cache_sized_chunks_and_an_empty_split_has_no_loss():
    calls = []

    class Counting(torch.nn.Module):
        def forward(self, x):
            calls.append(x.shape[0])
            return x

    x = torch.zeros(2 * EVALUATION_ROWS + 5, 2)
    assert evaluate_loss(Counting(), x, x) == 0.0
    assert calls == [EVALUATION_ROWS, EVALUATION_ROWS, 5]
    assert evaluate_loss(Counting(), x[:0], x[:0]) is None
