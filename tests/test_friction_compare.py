"""Coulomb friction through ``crossdyn compare`` (applied mode): every engine built with f_c = 0 and the runner
applying −f_c tanh(q̇/v_s) from each engine's own state; the usual tolerance rules (Richardson estimate,
same-integrator check) then pass on a 4-link arm with gravity along +x, damping and f_c > 0, and on the
planar3r-friction preset, where before any f_c > 0 failed; ``native_friction=True`` keeps the engines' own
friction (and still fails: MuJoCo's frictionloss is not f_c sign(q̇))."""
from __future__ import annotations

import pytest
import json
from pathlib import Path

import jsonschema

import numpy as np

from crossdyn.comparison.compare import compare
from crossdyn.engines import available_engines
from crossdyn.models import load_arm

ARM = Path(__file__).parent / "data" / "planar4r-friction-gx.toml"
ENGINES = [e for e in ("analytic", "mujoco", "mujoco-rk4", "pybullet", "pinocchio", "dart") if e in available_engines()]


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_four_link_arm_with_friction_passes_in_applied_mode():
    c = compare(str(ARM), duration=1.0, engines=ENGINES, n_states=100, convergence_dts=())
    s = c.summary
    assert s["verdict"] == "PASS", s["failures"]
    schema = json.loads((Path(compare.__code__.co_filename).parent / "summary.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(s)), schema)
    assert s["friction"]["mode"] == "applied" and s["friction"]["fc_nm"] == [0.2, 0.1, 0.2, 0.1]
    assert s["spec"]["links"][0]["friction"] == 0.2  # the user's spec is reported, not the engines' f_c = 0 copy
    for name in ENGINES:
        assert "tanh" in s["engines"][name]["config"]["applied_friction"]
        assert s["engines"][name]["config"]["native_friction"] is False
        assert s["engines"][name]["config"].get("joint_friction", [0.0] * 4) == [0.0] * 4  # native friction off
    if "dart" in ENGINES:
        assert s["engines"]["dart"]["config"]["dart_coulomb_friction"] == [0.0] * 4  # DART's constraint off
        assert s["engines"][name]["status"] == "ok"
    # the applied torque includes the friction torque, so the driven run differs from a frictionless one
    free = compare(str(ARM), duration=1.0, engines=["analytic"], n_states=10, convergence_dts=(),
                   native_friction=True)
    assert free.summary.get("friction") is None


def test_preset_sticks_and_slips_and_passes():
    spec = load_arm("planar3r-friction")
    c = compare(spec, duration=3.0, engines=[e for e in ("mujoco", "pybullet") if e in ENGINES], n_states=100,
                convergence_dts=())
    assert c.summary["verdict"] == "PASS", c.summary["failures"]
    v_s = c.summary["friction"]["v_s_rad_s"]
    qd = c.reference.qd
    slow = (np.abs(qd) < v_s).mean(axis=0)
    assert np.all(slow > 0.2) and np.all(slow < 0.95), slow  # every joint both at (near) rest and moving


def test_native_friction_keeps_the_engines_own_and_fails():
    c = compare(str(ARM), duration=0.1, engines=["mujoco"], n_states=50, convergence_dts=(), native_friction=True)
    s = c.summary
    assert "friction" not in s and s["engines"]["mujoco"]["config"]["native_friction"] is True
    assert s["engines"]["mujoco"]["config"]["joint_frictionloss"] == [0.2, 0.1, 0.2, 0.1]
    assert s["verdict"] == "FAIL"
    assert any("mujoco: inverse_dynamics" in f for f in s["failures"])  # frictionloss is a constraint, not f_c sign(qd)
    a = compare(str(ARM), duration=0.1, engines=["mujoco"], n_states=50, convergence_dts=())
    assert a.summary["engines"]["mujoco"]["config"]["joint_frictionloss"] == [0.0] * 4  # applied: native off
