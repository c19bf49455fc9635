"""``crossdyn.analytic.as_params(spec)`` is cached per spec: what it returns must not be changeable in place, or one
caller's edit would change every later result for that arm in the process (issue 22)."""
from __future__ import annotations

import numpy as np
import pytest

from crossdyn import analytic
from crossdyn.models.presets import get_preset


@pytest.mark.parametrize("field", ["L", "m", "Lc", "J", "b", "fc", "gravity"])
def test_mutating_the_cached_params_raises_and_changes_nothing(field):
    spec = get_preset("planar3r")
    q, qd, tau = np.array([0.3, -0.2, 0.1]), np.array([0.5, 0.1, -0.4]), np.array([1.0, 0.5, 0.2])
    before = analytic.forward_dynamics(spec, q, qd, tau)
    p = analytic.as_params(spec)
    original = getattr(p, field).copy()
    with pytest.raises(ValueError, match="read-only"):
        getattr(p, field)[0] = 123.0
    with pytest.raises(ValueError, match="read-only"):
        getattr(p, field)[...] *= 2.0
    again = analytic.as_params(spec)
    np.testing.assert_array_equal(getattr(again, field), original)
    np.testing.assert_array_equal(analytic.forward_dynamics(spec, q, qd, tau), before)


def test_the_cached_params_cannot_be_rebound_and_copies_stay_free():
    spec = get_preset("planar2r")
    p = analytic.as_params(spec)
    with pytest.raises(AttributeError):
        p.L = np.ones(2)  # a NamedTuple: fields cannot be rebound
    mine = p.L.copy()
    mine[0] = 5.0  # a copy is the caller's own
    heavier = p._replace(m=p.m * 2.0)  # so is a new ArmParams
    assert analytic.as_params(spec).L[0] == spec.links[0].length
    assert not np.allclose(analytic.mass_matrix(heavier, [0.1, 0.2]), analytic.mass_matrix(spec, [0.1, 0.2]))


def test_params_passed_in_are_returned_as_they_are():
    p = get_preset("planar2r").params()
    assert analytic.as_params(p) is p and p.L.flags.writeable
