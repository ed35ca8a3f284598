"""Fixed-seed non-regression outputs of every registered architecture (float64, rtol 1e-5).

The numbers were produced by the code before issue 16 split ``ModelConfig`` per architecture;
each case checks the model as built from ``torch.manual_seed(0)`` and after a fixed
perturbation of every parameter (so every layer, step and constant takes part).
"""

from __future__ import annotations

import pytest
import torch

from surrogate.models.registry import all_architecture_names, build_model, config_from_dict

SEQUENCE_ARCHS = ("lem", "cornn", "lstm")

CASES = {
    "resnet": dict(arch="resnet", width=4, depth=3, tau_init=0.3),
    "resnet-lipschitz-skew": dict(arch="resnet", width=4, depth=3, tau=0.4, step_lipschitz=0.5,
                                  skew_weights=True),
    "resnet-exact-horizon": dict(arch="resnet", width=4, depth=3, time_horizon=1.5,
                                 horizon_mode="exact", activation="tanh"),
    "frac-dnn": dict(arch="frac-dnn", width=4, depth=3, gamma=0.3, tau_min=1e-3),
    "densenet": dict(arch="densenet", width=4, depth=3, activation="softplus"),
    "implicit-resnet": dict(arch="implicit-resnet", width=4, depth=3, theta=0.5, tau=0.5,
                            skew_weights=True, activation="tanh", solver_tol=1e-12),
    "ck-net": dict(arch="ck-net", width=4, depth=3, order=3, step_lipschitz=0.8,
                   activation="relu"),
    "ode-net": dict(arch="ode-net", width=4, depth=3, cubic=0.2, multistep=True),
    "lem": dict(arch="lem", hidden=3, learn_dt=True, dt=0.5),
    "cornn": dict(arch="cornn", hidden=3, dt=0.1, gamma=1.5, epsilon=2.0, damping="explicit"),
    "lstm": dict(arch="lstm", hidden=3, readout="last"),
}

EXPECTED = {
    "resnet": (
        [-0.037170616335886836, -0.2316301031198555, -0.054023560039231255,
         -0.1264112497369791, -0.0755612621575082, -0.11634475835510288],
        [0.16925245255568952, -0.395026706656141, 0.08417383737104171,
         -0.17441735800491492, 0.0572631775320456, -0.12258536631191928],
    ),
    "resnet-lipschitz-skew": (
        [-0.052575139967261486, -0.2939882256257276, -0.0797640231361513,
         -0.15536709607056526, -0.11526029621765768, -0.1636715091214947],
        [0.2406407715441865, -0.40064220174092546, 0.09631020771193202,
         -0.18284394262305664, -0.02997046487741234, -0.1189612543495849],
    ),
    "resnet-exact-horizon": (
        [-0.1253517733361531, -0.30839300840822953, -0.18605290855048504,
         -0.16202237562041796, -0.2517491682212911, 0.04317559022086706],
        [0.20805169458412243, -0.35779959122065713, 0.12551558926263648,
         -0.22233951232549615, -0.0871713012294848, 0.06367903601383955],
    ),
    "frac-dnn": (
        [-0.05284294819090928, -0.17443190807566195, -0.05870550321625504,
         -0.13372796675352233, -0.06204863324376939, -0.12465223017482835],
        [0.03700022250080959, -0.22516183545324225, 0.03774921200318959,
         -0.131069354978732, 0.04330640771578874, -0.10276689559009655],
    ),
    "densenet": (
        [0.07855341007642762, -0.31089572390554954, 0.06274645673035945,
         -0.27041684850332126, 0.04768318136490457, -0.24680033187997488],
        [0.33140763715193683, -0.39178960298731874, 0.25235734918101765,
         -0.30875270571385194, 0.18918925697097963, -0.2610944285899396],
    ),
    "implicit-resnet": (
        [-0.1410560873988895, -0.1807960929304054, -0.19603715678512584,
         -0.09377660779537905, -0.2500745704089435, 0.02873946122175236],
        [0.38766707169129144, -0.3677790282593631, 0.1679095750762271,
         -0.21687181085267765, -0.2365078742262563, 0.07174058514625387],
    ),
    "ck-net": (
        [0.006878951582079026, -0.04249036675765224, 0.001206642260068183,
         -0.008170263027438939, -0.0063553824483221985, -0.008305079936540945],
        [0.07763404036846953, -0.09354154700945444, 0.03325418042927548,
         -0.03233149049064938, 0.016687191270085514, -0.0220630021667031],
    ),
    "ode-net": (
        [-0.1583122683220424, 0.13274566008193134, -0.025565400899527725,
         -0.09391122511065385, 0.14052105330664438, -0.1980994092708968],
        [-0.34933554006347267, 0.3053849284043135, 0.07275870737160858,
         -0.10976704686728399, 0.5050529394697263, -0.44743406793996654],
    ),
    "lem": (
        [0.45345037955324036, 0.39205145025059907, 0.26790295819706983,
         0.1671650473446652, 0.42094187160209, 0.3904749265720644,
         0.2983391853974212, 0.18534382815596084],
        [0.6084507473746961, 0.49783879192696434, 0.311892020038545,
         0.19640993438785648, 0.5833967017284841, 0.4916542875805878,
         0.35107242709128333, 0.2053994233525649],
    ),
    "cornn": (
        [-0.2257804785986674, -0.22617290517424982, -0.22713137613506745,
         -0.2293273865633432, -0.22649232567140318, -0.2276629093322744,
         -0.2286422518374509, -0.23049303699557053],
        [0.025709547444034208, 0.022911668418346645, 0.020214196573335064,
         0.018042836701191216, 0.025982772092862646, 0.0232659158774027,
         0.019950870695234824, 0.01733598255472566],
    ),
    "lstm": (
        [-0.22173000532604611, -0.23523603984162528,
         ],
        [0.14197145637259626, 0.12642925858466797,
         ],
    ),
}


def _inputs(sequence: bool) -> torch.Tensor:
    """(3, 2) points, or (2, 4, 2) sequences, fixed and float64."""
    if sequence:
        steps = torch.arange(2 * 4 * 2, dtype=torch.float64).reshape(2, 4, 2)
        return torch.sin(0.7 * steps + 0.3)
    return torch.linspace(-1.0, 1.0, 6, dtype=torch.float64).reshape(3, 2)


def _perturb(model: torch.nn.Module) -> None:
    """Add 0.3 sin(1 + k) to the k-th entry of every parameter."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.sin(1.0 + torch.arange(p.numel(), dtype=p.dtype)).view(p.shape))


def test_every_architecture_has_a_case():
    assert {case["arch"] for case in CASES.values()} == set(all_architecture_names())


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_seed_output(name):
    options = CASES[name]
    sequence = options["arch"] in SEQUENCE_ARCHS
    config = config_from_dict({**options, "in_features": 2, "out_features": 1 if sequence else 2})
    torch.manual_seed(0)
    model = build_model(config).double()
    x = _inputs(sequence)
    built, perturbed = EXPECTED[name]
    with torch.no_grad():
        torch.testing.assert_close(model(x).flatten(), torch.tensor(built, dtype=torch.float64),
                                   rtol=1e-5, atol=1e-12)
        _perturb(model)
        torch.testing.assert_close(model(x).flatten(),
                                   torch.tensor(perturbed, dtype=torch.float64),
                                   rtol=1e-5, atol=1e-12)


def test_base_config_called_with_an_arch_builds_that_architectures_config():
    """``ModelConfig(arch=...)`` (the public name) keeps building configs by name."""
    from surrogate import ModelConfig, SequenceModelConfig
    from surrogate.models.registry import config_from_dict

    config = ModelConfig(arch="frac-dnn", in_features=5, out_features=3, width=8, gamma=0.3)
    assert config == config_from_dict(config.to_dict())
    assert type(config).__name__ == "FractionalDNNConfig" and config.gamma == 0.3
    sequence = SequenceModelConfig(arch="cornn", in_features=2, out_features=1, hidden=4)
    assert type(sequence).__name__ == "CoRNNConfig"
