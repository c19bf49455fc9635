"""Native Coulomb friction (crossdyn.native.friction): MuJoCo's and PyBullet's own mechanisms against the
set-valued stick–slip reference on planar3r-friction's default profile (1 s).  Measured: reference joint 2 stuck
the whole second, joint 3 until 0.659 s; MuJoCo's soft frictionloss creeps 2.7e-3 rad on joint 2 while the
reference is stuck (max 7e-3 rad/s), PyBullet's velocity motor 1.7e-5 rad (stuck 0.97 s of 1)."""
from __future__ import annotations

import pytest

from crossdyn.comparison.compare import _profile, compare, start_state
from crossdyn.native.friction.episodes import intervals
from crossdyn.native.friction.runs import characterise_friction
from crossdyn.engines import available_engines
from crossdyn.models import load_arm

pytestmark = pytest.mark.skipif(not {"mujoco", "pybullet"} <= set(available_engines()), reason="needs both engines")


def test_intervals():
    assert intervals([False, True, True, False, True], [0, 1, 2, 3, 4]) == [(1.0, 2.0), (4.0, 4.0)]


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_mujoco_creeps_where_the_reference_and_pybullet_stick():
    spec = load_arm("planar3r-friction")
    profile = _profile(None, spec)
    q0, qd0 = start_state(spec, profile, None, None)
    r = characterise_friction(spec, profile, q0, qd0, 1.0)
    ref = {j["joint"]: j for j in r["reference"]["joints"]}
    assert ref[2]["intervals_s"] == [(0.0, 1.0)] and ref[3]["intervals_s"][0][0] == 0.0
    mj = {j["joint"]: j for j in r["engines"]["mujoco"]["joints"]}
    pb = {j["joint"]: j for j in r["engines"]["pybullet"]["joints"]}
    assert mj[2]["creep_while_stuck_rad"] > 1e-3                                  # measured 2.7e-3: soft constraint
    assert mj[2]["creep_while_stuck_rad"] > 10 * pb[2]["creep_while_stuck_rad"]   # measured 160x
    assert pb[2]["stick_time_s"] > 0.9 and mj[2]["stick_time_s"] < 0.5            # measured 0.97 and 0.23 s
    assert "frictionloss" in r["engines"]["mujoco"]["friction_model"]


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_compare_reports_the_characterisation(tmp_path):
    c = compare("planar3r-friction", duration=0.2, engines=["mujoco"], n_states=20, convergence_dts=(),
                characterise_friction=True)
    import json
    from pathlib import Path

    import jsonschema

    import crossdyn

    native = c.summary["friction"]["native"]
    assert set(native["engines"]) == {"mujoco", "pybullet"}
    assert any(n.startswith("friction, native mujoco") and "creep while stuck" in n for n in c.summary["notes"])
    # judged: MuJoCo's default frictionloss creeps while the reference sticks, which fails the comparison
    assert native["verdict"]["mujoco"]["pass"] is False and c.summary["verdict"] == "FAIL"
    assert any(f.startswith("mujoco: native friction departs at joint ") for f in c.summary["failures"])
    assert set(c.stick_slip_timelines) == {"reference", "mujoco", "pybullet"}
    schema = json.loads((Path(crossdyn.__file__).parent / "comparison" / "summary.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(c.summary, default=float)), schema)
    from crossdyn.reporting import stick_slip_timelines, write_outputs

    written = write_outputs(c, tmp_path, plots=True, animation=False)
    assert "stick_slip.png" in written and written["stick_slip.png"].stat().st_size > 5000
    md = written["report.md"].read_text()
    assert "## Coulomb friction, native" in md and "mujoco: FAIL" in md and "stick_slip.png" in md
    lines = stick_slip_timelines(c)
    # rows: the set-valued reference, the applied run (|qd| < v_s) and both native runs; joint 2 (f_c = 0.6 N m)
    # sticks the whole 0.2 s in the reference, and PyBullet's motor holds it too
    assert set(lines) == {"reference", "mujoco", "mujoco (native)", "pybullet (native)"}
    assert lines["reference"]["stuck"][:, 1].all() and lines["pybullet (native)"]["stuck"][5:, 1].all()


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_stick_slip_timeline_without_characterisation_computes_the_reference():
    """Every compare of an arm with Coulomb friction gets the timeline: without --characterise-friction the
    set-valued reference is computed for the plot; the applied run's rows use |qd| < v_s.  An arm without
    friction gets no timeline."""
    from crossdyn.reporting import stick_slip_plot, stick_slip_timelines

    c = compare("planar3r-friction", duration=0.2, engines=["mujoco"], n_states=20, convergence_dts=())
    lines = stick_slip_timelines(c)
    assert set(lines) == {"reference", "mujoco"} and lines["reference"]["stuck"].shape == (201, 3)
    assert lines["mujoco"]["threshold"].startswith("|qd| < v_s")
    assert lines["reference"]["stuck"][:, 1].all()  # joint 2 sticks throughout (as with the characterisation)
    assert "stick_slip.png" in stick_slip_plot(c)
    plain = compare("planar2r", duration=0.1, engines=["mujoco"], n_states=20, convergence_dts=())
    assert stick_slip_plot(plain) == {}
