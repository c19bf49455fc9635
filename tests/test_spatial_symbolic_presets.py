"""The spatial presets' shipped symbolic M, C, G (crossdyn/analytic/generated/spatial/*.json): regenerating them
gives the shipped text, they agree with Pinocchio and crossdyn.spatial at 1,000 random states on the preset's own
RobotModel (spec27's frames: an independent path), and a user's arm is derived within a time budget or falls back
to a numeric-only check that says so.

Tolerance 1e-12 relative to the reference's largest entry (see tests/test_spatial_symbolic.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from crossdyn.analytic import spatial_generated as sg
from crossdyn.analytic.spatial_symbolic import derive
from spatial_symbolic_arms import ARMS, relative_error, to_pinocchio

ROOT = Path(__file__).resolve().parent.parent
TOL = 1e-12
PRESETS = ("rp-polar", "rpp-cylindrical", "scara", "elbow-rrr", "ppp-cartesian", "pan-tilt")


def test_every_preset_is_shipped():
    assert sorted(PRESETS) == sg.shipped_names()


@pytest.mark.parametrize("name", PRESETS)
def test_shipped_form_is_consistent(name):
    """Every entry is Σ π_k Y_k with π_k a product of inertial symbols only; M symmetric; C has n² entries."""
    d, values = sg.shipped(name)
    inertial = set(d.inertial)
    assert d.M == d.M.T and d.C.shape == (d.n, d.n) and d.G.shape == (d.n, 1)
    for pairs in d.collected.values():
        for pi, Y in pairs:
            assert pi.free_symbols <= inertial and not (Y.free_symbols & inertial)
    assert set(values) >= {str(s) for s in d.params if s not in inertial}


def test_regenerating_gives_the_shipped_files():
    pytest.importorskip("crossdyn.models.spatial_presets")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_spatial_symbolic.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.fixture(scope="module", params=PRESETS)
def preset(request):
    presets = pytest.importorskip("crossdyn.models.spatial_presets")
    spec = presets.SPATIAL_PRESETS[request.param]()
    d, values = sg.shipped(request.param)
    rng = np.random.default_rng(27)
    lo = np.where(np.isfinite(spec.to_robot_model().lower()), spec.to_robot_model().lower(), -np.pi)
    hi = np.where(np.isfinite(spec.to_robot_model().upper()), spec.to_robot_model().upper(), np.pi)
    Q = rng.uniform(lo, hi, (1000, d.n))
    QD = rng.uniform(-2.0, 2.0, (1000, d.n))
    return spec.to_robot_model(), d, values, Q, QD


def test_preset_agrees_with_pinocchio(preset):
    pin = pytest.importorskip("pinocchio")
    model, d, values, Q, QD = preset
    pm, pd = to_pinocchio(model)
    Mr = np.array([pin.crba(pm, pd, q) for q in Q])
    Mr = np.triu(Mr) + np.triu(Mr, 1).transpose(0, 2, 1)
    h = np.array([pin.nonLinearEffects(pm, pd, q, v) for q, v in zip(Q, QD, strict=True)])
    Gr = np.array([pin.computeGeneralizedGravity(pm, pd, q) for q in Q])
    G = d.gravity(Q, values)
    assert relative_error(d.mass_matrix(Q, values), Mr) <= TOL
    assert relative_error(G, Gr) <= TOL
    assert relative_error(np.einsum("kij,kj->ki", d.coriolis_matrix(Q, QD, values), QD) + G, h) <= TOL


def test_preset_agrees_with_crossdyn_spatial(preset):
    spatial = pytest.importorskip("crossdyn.spatial")
    model, d, values, Q, QD = preset
    G = d.gravity(Q, values)
    assert relative_error(d.mass_matrix(Q, values), spatial.crba(model, Q)) <= TOL
    assert relative_error(G, spatial.gravity_torque(model, Q)) <= TOL
    assert relative_error(np.einsum("kij,kj->ki", d.coriolis_matrix(Q, QD, values), QD) + G,
                          spatial.bias(model, Q, QD)) <= TOL


def test_rp_polar_names_m2_d2_squared():
    """rp-polar's M11 has m2 with the coefficient q2**2 (the textbook's m2 d2²) and G2 = m2 g sin(q1)."""
    d, _ = sg.shipped("rp-polar")
    q1, q2 = d.q
    m2 = next(s for s in d.inertial if str(s) == "m2")
    g = next(s for s in d.params if str(s) == "g")
    assert dict(d.collected[("M", 0, 0)])[m2] == q2**2
    assert sp.expand(d.G[1] - m2 * g * sp.sin(q1)) == 0


def test_scara_names_the_prismatic_gravity_term():
    """The SCARA's quill (joint 3, moving down along z1 = −z0) carries m3 g in G3, alone (a term the check can
    name when a student drops it)."""
    d, _ = sg.shipped("scara")
    m3 = next(s for s in d.inertial if str(s) == "m3")
    g = next(s for s in d.params if str(s) == "g")
    assert d.collected[("G", 2, 0)] == ((m3, -g),)


def test_derive_within_budget_equals_the_direct_derivation():
    arm = ARMS["scara"]()
    d = sg.derive_within(arm, budget_s=60.0)
    assert isinstance(d, type(derive(arm)))
    assert sp.expand(d.M - derive(arm).M) == sp.zeros(3, 3)


def test_derive_past_budget_falls_back_to_numeric_only():
    out = sg.derive_within(ARMS["elbow"](), budget_s=0.001)
    assert isinstance(out, sg.NumericOnly)
    assert "term naming is unavailable" in out.message() and "0.001 s" in out.message()
