"""Quantities of interest: parsing, the energy by quadrature, probe components."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.families import get_family
from surrogate.uq import ExactQuantities, parse_quantities, quantity_points
from surrogate.uq.quantities import Quantity, function_quantity, parse_quantity


def test_parsing_names_and_errors():
    energy, probe = parse_quantities(["energy", "probe:0.5,0.25,0.5", "energy"])
    assert energy.names == ("energy",)
    assert probe.names == tuple(f"probe:0.5,0.25,0.5:{c}" for c in ("u1", "u2", "u3"))
    assert parse_quantities(None) == (energy,)
    for bad in ("energie", "probe:1,2", "probe:a,b,c", "probe:1,2,nan"):
        with pytest.raises(InputError, match="unknown quantity"):
            parse_quantity(bad)


def test_energy_and_probes_of_the_closed_form():
    family = get_family("radial")
    quantities = parse_quantities(["probe:0.5,0.25,0.5", "energy"])
    points = quantity_points(quantities, "cube", 2, 4)
    mu = family.sample(3, 4)
    values = ExactQuantities(family, points)(mu)
    assert values.shape == (3, 4) and points.names[3] == "energy"
    # the energy ∫|u|² over the cube: the degree-4 rule on level 2 against level 3
    fine = quantity_points(quantities[1:], "cube", 3, 4)
    for row, m in zip(values, mu, strict=True):
        u = family.problem(m).u
        np.testing.assert_allclose(row[:3], u(np.array([[0.5, 0.25, 0.5]]))[0], rtol=1e-13)
        reference = fine.weights @ np.einsum("ij,ij->i", u(fine.quadrature), u(fine.quadrature))
        assert row[3] == pytest.approx(reference, rel=1e-4)


def test_a_probe_outside_the_domain_is_a_one_line_error():
    with pytest.raises(InputError, match="outside the cube"):
        quantity_points(parse_quantities(["probe:2,0,0"]), "cube", 1, 2)


def test_the_field_follows_the_scalars_and_a_function_of_u_is_a_quantity():
    family = get_family("radial")
    assert parse_quantities(["field"]) == (Quantity("energy"), Quantity("field"))
    line = np.array([[0.2, 0.1, z] for z in (0.25, 0.5, 0.75)])
    mean_u1 = function_quantity(["mean u1"], line, lambda u: u[:, :, 0].mean(axis=1))
    quantities = (Quantity("field"), *parse_quantities(["probe:0.5,0.25,0.5"]), mean_u1)
    points = quantity_points(quantities, "cube", 1, 2)
    assert points.names[-1] == "mean u1" and len(points.names) == 4 and points.field_nodes == 27
    mu = family.sample(2, 5)
    values = ExactQuantities(family, points)(mu)
    assert values.shape == (2, 4 + 3 * 27)
    for row, m in zip(values, mu, strict=True):
        u = family.problem(m).u
        np.testing.assert_allclose(row[:3], u(np.array([[0.5, 0.25, 0.5]]))[0], rtol=1e-13)
        assert row[3] == pytest.approx(u(line)[:, 0].mean(), rel=1e-13)
        np.testing.assert_allclose(row[4:].reshape(27, 3), u(points.mesh.p.T), rtol=1e-13)
    wrong = function_quantity(["a", "b"], line, lambda u: u[:, :, 0])
    with pytest.raises(InputError, match="returned shape"):
        ExactQuantities(family, quantity_points((wrong,), "cube", 1, 2))(mu)


def test_a_cheaper_energy_rule_keeps_the_located_points_and_the_integral():
    from surrogate.uq.quantities import with_energy_rule

    family = get_family("radial")
    quantities = parse_quantities(["energy", "probe:0.5,0.25,0.5", "field"])
    fine = quantity_points(quantities, "cube", 2, 6)
    coarse = with_energy_rule(fine, 1, 4)
    assert (coarse.level, coarse.intorder) == (1, 4)
    assert len(coarse.weights) < len(fine.weights) / 4
    np.testing.assert_array_equal(coarse.probes, fine.probes)  # probe and the field's nodes
    assert coarse.field_nodes == fine.field_nodes and coarse.names == fine.names
    mu = family.sample(4, 11)
    near, far = ExactQuantities(family, coarse)(mu), ExactQuantities(family, fine)(mu)
    np.testing.assert_allclose(near[:, 1:], far[:, 1:], rtol=0, atol=0)
    # the same ∫|u|² over the cube by another rule: a different functional, close
    np.testing.assert_allclose(near[:, 0], far[:, 0], rtol=1e-3)
    assert with_energy_rule(fine, None, None) is fine
    with pytest.raises(InputError, match="surrogate level 0 does not exist"):
        with_energy_rule(quantity_points(quantities, "cylinder", 1, 2), 0, 2)
