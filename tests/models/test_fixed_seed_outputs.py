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
    "deeponet": dict(arch="deeponet", width=4, depth=2, basis=3, branch_depth=3,
                     branch_arch="frac-dnn", tau_min=1e-3, quadratic_output=True, in_features=5,
                     activation="tanh"),
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
    # deeponet: recorded when it was added (issue 29)
    "deeponet": (
        [0.00010116989059650222, 0.0007396980312132585, 0.0017357933649524045,
         0.00025053384431482145, 0.003427439429016735, -0.0005150122883261755],
        [0.2649839947068978, 0.2828560593382882, 0.24989979174718605,
         0.2720114677829737, 0.2358845870968496, 0.2588355707830499],
    ),
    # lem, cornn: re-recorded for issue 20 (read-out weight Kaiming-normal, the authors' init)
    "lem": (
        [0.4731531435873099, 0.42753034067741014, 0.5328367354931546,
         0.6578310725494978, 0.560094554917295, 0.4756354424507309,
         0.5047770580995702, 0.6280251803863419],
        [0.7201461396268544, 0.6410354939740912, 0.7133721272637096,
         0.8015082516438424, 0.8116653828169634, 0.7110066385102067,
         0.7155784489408767, 0.7969174299478438],
    ),
    "cornn": (
        [-0.22578063973127335, -0.2270958884139781, -0.22698286553573271,
         -0.2251872882477128, -0.2249148264737035, -0.225877298007026,
         -0.22645440747336848, -0.22517808719368984],
        [0.02637228955157788, 0.023986530954630447, 0.024929731453886876,
         0.0299400792246894, 0.02867274969427514, 0.02746384426438848,
         0.02699632048369057, 0.030701704664368747],
    ),
    "lstm": (
        [-0.22173000532604611, -0.23523603984162528,
         ],
        [0.14197145637259626, 0.12642925858466797,
         ],
    ),
}


def _inputs(sequence: bool, columns: int = 2) -> torch.Tensor:
    """(3, columns) points, or (2, 4, 2) sequences, fixed and float64."""
    if sequence:
        steps = torch.arange(2 * 4 * 2, dtype=torch.float64).reshape(2, 4, 2)
        return torch.sin(0.7 * steps + 0.3)
    return torch.linspace(-1.0, 1.0, 3 * columns, dtype=torch.float64).reshape(3, columns)


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
    config = config_from_dict({"in_features": 2, **options,
                               "out_features": 1 if sequence else 2})
    torch.manual_seed(0)
    model = build_model(config).double()
    x = _inputs(sequence, config.in_features)
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
