"""The per-layer gradient norms logged each epoch equal the plain per-tensor sums."""

import pytest
import torch

from surrogate.models.registry import build_model, model_config
from surrogate.training.gradients import layer_gradient_meter, total_gradient_meter


def _plain(model):
    weights, biases = model.layer_weights(), model.layer_biases()

    def sq(tensors):
        return sum(float(t.grad.pow(2).sum()) for t in tensors if t.grad is not None)

    layered = {id(t) for t in (*weights, *biases)}
    others = [p for p in model.parameters() if id(p) not in layered]
    return [sq((w, b)) for w, b in zip(weights[:-1], biases, strict=True)] + [
        sq(weights[-1:]), sq(others)]


@pytest.mark.parametrize("arch", ["resnet", "frac-dnn", "deeponet"])
def test_fused_norms_match_the_per_tensor_sums(arch):
    torch.manual_seed(0)
    extra = {"basis": 4, "branch_width": 5, "branch_depth": 2} if arch == "deeponet" else {}
    in_features = 7 if arch == "deeponet" else 3
    model = build_model(model_config(arch=arch, in_features=in_features, out_features=3,
                                     width=6, depth=3, **extra)).double()
    x = torch.randn(20, in_features, dtype=torch.float64)
    model(x).pow(2).sum().backward()
    got = layer_gradient_meter(model)()
    assert got.shape == (len(model.layer_biases()) + 2,)
    assert got.tolist() == pytest.approx(_plain(model), rel=1e-12, abs=1e-300)
    assert float(got.sum()) > 0.0


def test_a_meter_reads_each_steps_gradients_and_skips_parameters_without_one():
    torch.manual_seed(1)
    model = build_model(model_config(arch="resnet", in_features=3, out_features=2, width=5,
                                     depth=2)).double()
    meter = layer_gradient_meter(model)  # built once per epoch, read once per step
    assert meter().tolist() == [0.0] * 4  # no gradients yet
    for scale in (1.0, 3.0):
        model.zero_grad(set_to_none=True)
        (scale * model(torch.randn(8, 3, dtype=torch.float64)).pow(2).sum()).backward()
        assert meter().tolist() == pytest.approx(_plain(model), rel=1e-12)
    model.layers[0].bias.grad = None  # e.g. a parameter the loss did not reach
    expected = _plain(model)
    assert meter().tolist() == pytest.approx(expected, rel=1e-12)


def test_the_total_meter_is_the_global_norm_squared():
    torch.manual_seed(2)
    model = build_model(model_config(arch="resnet", in_features=3, out_features=2, width=5,
                                     depth=2)).double()
    model(torch.randn(8, 3, dtype=torch.float64)).pow(2).sum().backward()
    plain = sum(float(p.grad.pow(2).sum()) for p in model.parameters())
    assert float(total_gradient_meter(model)()) == pytest.approx(plain, rel=1e-12)
