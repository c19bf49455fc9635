"""``identify`` on the spatial textbook arms (issue 27): the numeric base-parameter reduction (QR with column
pivoting of crossdyn.spatial's regressor) and the identification of the base parameters from exact torques."""
from __future__ import annotations

import numpy as np
import pytest

from crossdyn.checking.spatial_arms import SPATIAL_PRESETS, load_spatial
from crossdyn.identification.spatial_base import identify_exact, random_states, spatial_base, stacked


@pytest.mark.parametrize("name", sorted(SPATIAL_PRESETS))
def test_base_parameters_reproduce_the_torques(name):
    """W θ = W_ind β at fresh states (the combinations are right), r = rank W (numpy's SVD rank, another method),
    and least squares on exact torques gives β back; 1e-12 / 1e-9: double rounding of sums of ~100 products."""
    arm = load_spatial(name)
    model = arm.model(arm.values)
    base = spatial_base(model, prismatic=arm.prismatic_range)
    W = stacked(model, random_states(model, 100, np.random.default_rng(5), arm.prismatic_range))
    full, reduced = W @ base.theta, W[:, list(base.independent)] @ base.beta
    assert np.max(np.abs(full - reduced)) <= 1e-12 * np.max(np.abs(full))
    assert base.rank == np.linalg.matrix_rank(W)
    beta, valid = identify_exact(model, base, prismatic=arm.prismatic_range)
    assert np.max(np.abs(beta - base.beta)) <= 1e-9 * np.max(np.abs(base.beta)) and valid <= 1e-9


def test_cartesian_arm_identifies_each_mass():
    """A PPP arm's torques see only masses: joint 1 carries m1 + m2 + m3 (against gravity), joint 2 m2 + m3, joint 3
    m3 — so each mass is identifiable (differences of the three sums), and nothing else is: no inertia, no
    centre of mass (a translating body's torque does not depend on them)."""
    arm = load_spatial("ppp-cartesian")
    base = spatial_base(arm.model(arm.values))
    assert base.rank == 3
    assert sorted(base.names[i] for i in base.independent) == ["m1", "m2", "m3"]
    assert np.allclose(sorted(base.beta), sorted(arm.values[f"m{i}"] for i in (1, 2, 3)), rtol=1e-12, atol=0)
    assert len(base.unidentifiable()) == 27


def test_cli_identify_spatial(capsys):
    from crossdyn.cli import main

    assert main(["identify", "rp-polar"]) == 0
    out = capsys.readouterr().out
    assert "6 base parameters of 20" in out and "verdict: PASS" in out
    # link 2 slides along joint 1's axis direction: its rotational inertia about that axis adds to link 1's
    assert any("ZZ1" in line and "YY2" in line and " + " in line for line in out.splitlines())
