"""The native-limit verdict (crossdyn.native.limits.verdict): a tolerance built from measured terms only
(the native run's Richardson estimate, the torque inference's error, sampling, the engine's softness from
held-load side runs) that both passes and fails.

One link, no gravity, no torque, hitting a damped stop (k = 400 N m/rad, c = 3 N m s/rad) at 1.5 rad/s: with no
other acceleration MuJoCo's soft limit can realise the law, and a calibrated solref/solimp passes every check;
its direct form (−k, −c) (an acceleration, not N m/rad: mujoco #732) fails every one.
"""
from __future__ import annotations

import pytest

from crossdyn.engines import available_engines
from crossdyn.models.spec import ArmSpec, LinkSpec

pytestmark = pytest.mark.skipif("mujoco" not in available_engines(), reason="needs MuJoCo")

STOP = ArmSpec((LinkSpec(length=1.0, mass=2.0, com=0.5, inertia=0.1, limits=(-1.0, 0.2), limit_stiffness=400.0,
                         limit_damping=3.0),), gravity=(0.0, 0.0, 0.0), name="one-link-stop")


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_the_tolerance_passes_a_calibrated_mujoco_and_fails_the_direct_form():
    """compare --native --calibrate-limits on the one-link stop (0.4 s).  Measured: direct form penetrates
    0.067 rad against the law's 0.050 (tolerance 1.7e-3), peak torque 16.3 against 20.5 N m; calibrated
    0.0508 rad, 20.7 N m, every quantity inside its tolerance.  Each failure names engine, joint, quantity and
    the tolerance's terms; every check carries its terms in the summary (schema-valid)."""
    import json
    from pathlib import Path

    import jsonschema

    import crossdyn
    from crossdyn.comparison.compare import compare

    cmp = compare(STOP, duration=0.4, engines=["mujoco-rk4"], profile="zero", q0=(0.1,), qd0=(1.5,), native=True,
                  calibrate_limits=True, convergence_dts=(), n_states=20)
    lim = cmp.summary["limits"]
    direct, calibrated = lim["native"]["mujoco-rk4@native_limits=true"], \
        lim["native"]["mujoco-rk4@native_limits=true (calibrated)"]
    assert lim["native_reference"].startswith("event-exact continuous law")
    assert calibrated["pass"] is True and len(calibrated["checks"]) == 5
    assert direct["pass"] is False and {d["quantity"] for d in direct["departures"]} == {
        "max_penetration_rad", "peak_torque_nm", "time_in_contact_s", "rebound_ratio", "energy_absorbed_j"}
    for c in calibrated["checks"] + direct["checks"]:
        terms = (c["integration"] or 0) + c["inference"] + c["sampling"] + c["softness"]
        assert c["tolerance"] == pytest.approx(terms, rel=1e-12)
        assert c["integration"] is not None  # the dt/2 run matched contact for contact
    # the tolerance is small against the departure it fails: the direct form is ≥ 5× beyond it on penetration
    pen = next(d for d in direct["departures"] if d["quantity"] == "max_penetration_rad")
    assert abs(pen["native"] - pen["reference"]) > 5 * pen["tolerance"]
    assert any(f.startswith("mujoco-rk4@native_limits=true: native limit departs at joint 1 upper limit, contact 1: "
                            "max_penetration_rad") and "= integration" in f and "softness" in f
               for f in cmp.summary["failures"])
    assert not any("(calibrated)" in f for f in cmp.summary["failures"])
    soft = direct["softness"]["1 upper"]
    assert soft["law_give_rad"] == pytest.approx(soft["load_nm"] / 400.0, rel=1e-12)
    schema = json.loads((Path(crossdyn.__file__).parent / "comparison" / "summary.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(cmp.summary, default=float)), schema)


def test_held_load_give_measures_the_law_and_tells_a_rigid_stop_from_a_soft_one():
    """The side run, checked where the answer is known: with crossdyn's law applied (applied mode) the give under
    a held 5 N m load is the law's τ/k = 0.0125 rad (to 1e-3; the damped run settles in 1 s).  MuJoCo's direct
    limit gives 1.0e-3 rad (5000 N m/rad effective, measured) and twice that under twice the load (linear to
    5 %); PyBullet's hard limit gives < 1e-5 rad."""
    import numpy as np

    from crossdyn.native.limits.softness import held_load_give
    from crossdyn.engines import make_engine

    at = np.array([0.2])
    with make_engine("mujoco-rk4", STOP, 1e-3) as eng:
        law = held_load_give(eng, STOP, 0, "upper", 0.2, 5.0, at, limit_law=True)
    assert law["give_rad"] == pytest.approx(5.0 / 400.0, rel=1e-3) and law["unsettled_rad"] < 1e-5
    with make_engine("mujoco-rk4@native_limits=true", STOP, 1e-3) as eng:
        g5, g10 = (held_load_give(eng, STOP, 0, "upper", 0.2, load, at) for load in (5.0, 10.0))
    assert 1e-4 < g5["give_rad"] < 0.1 * law["give_rad"]   # measured 1.0e-3: 12x stiffer than the law
    assert g10["give_rad"] == pytest.approx(2 * g5["give_rad"], rel=0.05)
    if "pybullet" in available_engines():
        with make_engine("pybullet@native_limits=true", STOP, 1e-3) as eng:
            rigid = held_load_give(eng, STOP, 0, "upper", 0.2, 5.0, at)
        assert rigid["status"] == "ok" and rigid["give_rad"] < 1e-5


def test_closed_loop_profile_falls_back_to_the_applied_reference_with_its_commanded_torque():
    """A closed-loop profile has no torque ahead of time for the event-exact law: the native verdict uses the
    applied-mode reference (said in native_reference), its torque reduced to the commanded part, so the torque
    inference on it recovers the law's peak torque (inference term ≤ 1 % of it; it would be the whole torque
    if the law's part were left in)."""
    from crossdyn.comparison.compare import compare

    c = compare("planar2r-limits", duration=0.6, engines=["mujoco-rk4"], profile="pd-gravity", native=True,
                convergence_dts=(), n_states=20)
    lim = c.summary["limits"]
    assert lim["native_reference"].startswith("applied-mode reference") and "closed-loop" in lim["native_reference"]
    peaks = [x for v in lim["native"].values() for x in v["checks"] if x["quantity"] == "peak_torque_nm"]
    assert peaks and all(x["inference"] <= 0.01 * x["reference"] for x in peaks)
