"""Issue 25: the MuJoCo limit calibration's ready engine string.  MuJoCo's ``limit_solref``/``limit_solimp`` engine
options (one group for every limited joint or one per limited joint; validated as the contact's; applied to
``jnt_solref``/``jnt_solimp``; in ``config()``), the string ``compare --calibrate-limits`` prints and writes
(``limits.calibration.options``), which reproduces the fitted residual, its rerun through ``compare --native``, and
``export --native --calibrated SUMMARY``, whose MJCF holds the fitted values and simulates as the string runs."""
from __future__ import annotations

import json
import re

import mujoco
import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine
from crossdyn.engines.registry import split_engine_list
from crossdyn.inputs.profiles import make_profile
from crossdyn.models import get_preset
from crossdyn.native.fitting import rms

ARM = "planar2r-limits"
Q0, QD0 = np.array([-1.42, -0.075]), np.array([0.7, 0.0])  # joint 1 moves into its upper limit, joint 2 follows
DURATION = 0.3
REPRODUCED = 1e-9
"""Relative tolerance of a reproduced residual: the string carries every number at full precision (repr), so the
compiled model holds the fitted floats (measured equal to the last bit)."""


def _run(name: str, spec, prof):
    with make_engine(name, spec, 1e-3) as eng:
        tr = run_engine(eng, prof, Q0, QD0, DURATION, limit_law=False)
    assert tr.status == "ok"
    return tr


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """compare --calibrate-limits --engines mujoco-rk4 (CLI, 0.3 s, zero torque): its output folder, the printed
    rerun strings, the summary's calibration, and the law's reference run."""
    out = tmp_path_factory.mktemp("limits") / "cal"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["compare", ARM, "--calibrate-limits", "--engines", "mujoco-rk4", "--profile", "zero",
                     "--q0=-1.42,-0.075", "--qd0", "0.7,0", "--duration", str(DURATION), "--out", str(out),
                     "--quiet", "--no-plots"])
    assert code != 2
    printed = re.findall(r'^  rerun with: --native --engines "(.*)"$', buf.getvalue(), re.M)
    cal = json.loads((out / "summary.json").read_text())["limits"]["calibration"]
    spec = get_preset(ARM)
    prof = make_profile("zero", spec)
    with make_engine("analytic-reference", spec, 1e-3) as eng:
        ref = run_engine(eng, prof, Q0, QD0, DURATION)
    return out, printed, cal, spec, prof, ref


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_the_printed_string_reproduces_the_fit_and_the_uncalibrated_limit_differs(calibrated):
    """The printed string is the summary's ``options``, stays one engine in --engines, and run natively gives the
    fitted RMS against the law's reference (to 1e-9 relative); crossdyn's direct (-k, -c) gives the summary's
    direct residual, several times larger."""
    _, printed, cal, spec, prof, ref = calibrated
    assert printed == [cal["options"]] and split_engine_list(printed[0]) == printed
    assert printed[0].startswith("mujoco-rk4@native_limits=true@limit_solref=")
    again = rms(_run(printed[0], spec, prof).q, ref.q)
    assert again == pytest.approx(cal["residual_rms_rad"], rel=REPRODUCED)
    direct = rms(_run("mujoco-rk4@native_limits=true", spec, prof).q, ref.q)
    assert direct == pytest.approx(cal["direct_residual_rms_rad"], rel=REPRODUCED)
    assert direct > 2 * again


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_the_options_set_the_limited_joints_and_config_lists_them(calibrated):
    """Per joint, the compiled model holds the fitted floats; one group sets every limited joint."""
    _, printed, cal, spec, _, _ = calibrated
    with make_engine(printed[0], spec, 1e-3) as eng:
        c = eng.config()
    assert c["jnt_solref"] == cal["solreflimit"] and c["jnt_solimp"] == cal["solimplimit"]
    assert c["limit_solref_form"] == "given (limit_solref option)"
    with make_engine("mujoco@native_limits=true@limit_solref=0.05,0.7@limit_solimp=0.8,0.9,0.001,0.5,2", spec) as eng:
        assert eng.model.jnt_solref.tolist() == [[0.05, 0.7]] * 2
        assert eng.model.jnt_solimp.tolist() == [[0.8, 0.9, 0.001, 0.5, 2.0]] * 2
    with make_engine("mujoco@native_limits=true", spec) as eng:
        assert eng.config()["limit_solref_form"] == "direct (-k, -c) of the spec's limit law"
        assert eng.model.jnt_solref.tolist() == [[-link.limit_stiffness, -link.limit_damping] for link in spec.links]


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_compare_native_reruns_the_string_as_the_calibrated_run(calibrated):
    """compare --native --engines S runs S with its own limits: the same limit contacts as the calibration's
    '(calibrated)' native run of S (compare --native --calibrate-limits judges the calibration through S)."""
    from crossdyn.comparison.compare import compare

    _, printed, _, _, _, ref = calibrated
    again = compare(ARM, duration=DURATION, engines=split_engine_list(printed[0]), native=True, convergence_dts=(),
                    n_states=20, q0=tuple(Q0), qd0=tuple(QD0), profile="zero")
    lim = again.summary["limits"]
    assert list(lim["native"]) == printed
    assert rms(again.native_limit_runs[printed[0]].q, ref.q) == pytest.approx(
        calibrated[2]["residual_rms_rad"], rel=REPRODUCED)


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_export_writes_the_fitted_limits_and_the_file_simulates_as_the_string_runs(calibrated, tmp_path):
    """export --native --calibrated OUT --mjcf FILE: solreflimit/solimplimit of each limited joint are the fitted
    floats; stepped by MuJoCo itself (zero control) the file follows the string's native run to 1e-9 rad."""
    out, printed, cal, spec, prof, _ = calibrated
    xml = tmp_path / "calibrated.xml"
    assert main(["export", ARM, "--native", "--calibrated", str(out), "--mjcf", str(xml)]) == 0
    m = mujoco.MjModel.from_xml_string(xml.read_text())
    assert m.jnt_solref.tolist() == cal["solreflimit"] and m.jnt_solimp.tolist() == cal["solimplimit"]
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = Q0, QD0
    q = []
    for _ in range(round(DURATION / m.opt.timestep)):
        mujoco.mj_step(m, d)
        q.append(d.qpos.copy())
    assert np.max(np.abs(np.array(q) - _run(printed[0], spec, prof).q[1:])) <= 1e-9


@pytest.mark.parametrize("option, why", [
    ("limit_solref=0.001,1", "limited joint 1: timeconst 0.001 s is below 2 timestep = 0.002 s"),
    ("limit_solref=0.02,1,0.02", "must be 2 comma-separated finite numbers (every limited joint) or 2 per limited "
                                 "joint, 4 for this arm's 2"),
    ("limit_solref=0.02,1,0.02,-1", "limited joint 2: must be TIMECONST,DAMPRATIO (both > 0)"),
    ("limit_solref=0.02,1e999", "finite numbers"),
    ("limit_solimp=0.9,0.95,0.001,0.5", "must be 5 comma-separated finite numbers"),
    ("limit_solimp=0.9,1.5,0.001,0.5,2", "limited joint 1: needs dmin and dmax in [1e-4, 0.9999]"),
    ("limit_solimp=0.9,0.95,0.001,0.5,2,0.9,0.95,0.001,1,2", "limited joint 2: needs dmin and dmax"),
])
def test_bad_limit_options_exit_2_naming_option_and_value(option, why, capsys):
    engine = f"mujoco@native_limits=true@{option}"
    assert main(["compare", ARM, "--engines", engine, "--duration", "0.01", "--quiet", "--no-plots",
                 "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert f"mujoco {option}: " in err and why in err and "Traceback" not in err, err


def test_limit_options_need_native_limits_on_an_arm_with_a_limit_law(capsys):
    for arm, engine in ((ARM, "mujoco@limit_solref=0.02,1"), ("planar2r", "mujoco@native_limits=true@limit_solimp="
                                                                          "0.9,0.95,0.001,0.5,2")):
        assert main(["compare", arm, "--engines", engine, "--duration", "0.01", "--quiet", "--out", "unused"]) == 2
        err = capsys.readouterr().err
        assert "needs native_limits=true on an arm with a limit law" in err and engine.split("@")[-1] in err, err


def test_export_calibrated_refuses_a_summary_without_a_mujoco_calibration(tmp_path, capsys):
    spec = get_preset(ARM).to_dict()
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"arm": ARM, "dt": 0.001, "spec": spec, "limits": {}}))
    pybullet_only = tmp_path / "pb.json"
    pybullet_only.write_text(json.dumps({"arm": ARM, "dt": 0.001, "spec": spec, "limits": {
        "calibration_pybullet": {"options": "pybullet@native_limits=true@limit_force=1.0,2.0@limit_erp=0.2"}}}))
    for path, why in ((empty, "no contact calibration and no limit calibration"),
                      (pybullet_only, "holds no MuJoCo contact or limit calibration")):
        assert main(["export", ARM, "--native", "--calibrated", str(path), "--mjcf", "-"]) == 2
        err = capsys.readouterr().err
        assert f"--calibrated {path}" in err and why in err and "Traceback" not in err, err
