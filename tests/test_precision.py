"""An engine's floating-point precision is part of its tolerance (issue 23, case 4), and failure lines quote what
is known: no "tolerance None", "model differs" only where the evidence separates it from sensitivity.

No JAX here: float32 engines are stood in for by the analytic values rounded to float32 (what an exact float32
engine could at best return); the MJX runs are in tests/test_mjx.py."""
from types import SimpleNamespace

import numpy as np
import pytest

from crossdyn import analytic
from crossdyn.batch.compare import BatchOptions, tolerance_for
from crossdyn.comparison.groups import static, trajectory
from crossdyn.comparison.references import static_states
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.engines import precision
from crossdyn.engines.base import Engine
from crossdyn.models import get_preset

EPS32 = float(np.finfo(np.float32).eps)


def test_engines_declare_float64_by_default_and_float64_gets_no_term():
    assert Engine.dtype == "float64"
    assert precision.static_roundoff("float64", 10.0) == 0.0 and precision.trajectory_roundoff("float64", 3) == 0.0
    assert precision.static_roundoff("float32", 10.0) == pytest.approx(100 * EPS32 * 10)
    assert precision.static_roundoff("float32", 10.0, 50.0) == pytest.approx(10 * EPS32 * 50 * 10)
    # 10 × the batch's measured float32 growth (3.07e-6 rad at 1 s); grown as T² beyond 1 s
    assert precision.trajectory_roundoff("float32", 0.5) == pytest.approx(3.07e-5)
    assert precision.trajectory_roundoff("float32", 2.0) == pytest.approx(4 * 3.07e-5)


def _values(spec, st, dtype=np.float32):
    """τ, M, q̈ of ``spec`` at the states ``st``, rounded to ``dtype``."""
    tau = analytic.inverse_dynamics(spec, st.q, st.qd, st.qdd).astype(dtype).astype(float)
    M = analytic.mass_matrix(spec, st.q).astype(dtype).astype(float)
    qdd = analytic.forward_dynamics(spec, st.q, st.qd, st.tau).astype(dtype).astype(float)
    return static.StaticValues(tau, M, qdd)


def _groups(spec, st, ev, dtype):
    tol = Tolerances()
    return {m.name: m.values for m in (static.inverse_dynamics_group(spec, st, ev, tol, dtype),
                                       static.forward_dynamics_group(st, ev, tol, dtype),
                                       static.mass_matrix_group(st, ev, tol, dtype))}


def test_float32_round_off_passes_as_float32_and_fails_as_float64():
    spec = get_preset("planar3r")
    st = static_states(spec, 20, 0)
    ev = _values(spec, st)
    as64 = _groups(spec, st, ev, "float64")
    assert not any(v["pass"] for v in as64.values())  # float32 rounding is far outside float64's tolerances
    assert all("precision" not in v for v in as64.values())  # float64 documents unchanged
    as32 = _groups(spec, st, ev, "float32")
    for name, v in as32.items():
        assert v["pass"], (name, v)
        assert v["precision"]["dtype"] == "float32"
        assert v["precision"]["origin"].startswith(
            "float32 round-off: 10 × eps" if name == "forward_dynamics" else "float32 round-off: 100 × eps")
    assert "cond(M)" in as32["forward_dynamics"]["precision"]["origin"]


def test_a_one_percent_mass_error_still_fails_in_float32():
    spec = get_preset("planar3r")
    heavy = spec.with_link(1, mass=spec.links[1].mass * 1.01)
    st = static_states(spec, 20, 0)
    res = _groups(spec, st, _values(heavy, st), "float32")
    assert not res["mass_matrix"]["pass"] and not res["inverse_dynamics"]["pass"]
    assert "float32 round-off" in res["mass_matrix"]["failed_because"]
    assert res["mass_matrix"]["max_abs_error"] > 10 * res["mass_matrix"]["tolerance"]


def _run(q, status="ok", message=None):
    q = np.asarray(q, float)
    return SimpleNamespace(t=np.arange(len(q)) * 1e-3, q=q, status=status, message=message)


def _traj(q_engine, q_half, q_same, dtype="float64", half_status="ok", sensitivity=1e-13, dtype_sensitivity=None):
    """The trajectory group of an engine run ``q_engine`` (a motion over 1 rad, so the tolerance bound is 0.05 rad)
    whose dt/2 run is ``q_half``, same-scheme run ``q_same``, that run's rerun from a moved start differing from
    it by ``sensitivity`` (None: the rerun failed)."""
    q_engine = np.asarray(q_engine, float).copy()
    q_engine[:, 0] += np.linspace(0.0, 1.0, len(q_engine))  # the joint moves 1 rad over the run
    n = len(q_engine)
    ref = _run(q_engine - 1e-9 * np.arange(n)[:, None])
    q_half = np.asarray(q_half, float).copy()
    q_half[::2, 0] += np.linspace(0.0, 1.0, len(q_engine))[: len(q_half[::2])]
    q_half[1::2, 0] = q_half[::2, 0][: len(q_half[1::2])]
    half = _run(q_half, half_status, "engine raised: boom" if half_status != "ok" else None)
    same = pert = None
    if q_same is not None:
        same = np.asarray(q_same, float).copy()
        same[:, 0] += np.linspace(0.0, 1.0, len(q_engine))
        pert = _run(same + (sensitivity or 0.0), "ok" if sensitivity is not None else "failed")
        same = _run(same)
    pert_dtype = None if dtype_sensitivity is None else _run(same.q + dtype_sensitivity)
    side = trajectory.SideRuns(1, "semi-implicit-euler", half, None, "semi-implicit-euler", same, dtype,
                               pert, 2.2e-13, 1e-3, perturbed_dtype=pert_dtype, perturbation_dtype_rad=3.07e-6)
    return trajectory.trajectory_group(_run(q_engine), ref, side, Tolerances(),
                                       trajectory.planar_tip(get_preset("planar2r").params())).values


def test_no_tolerance_is_said_with_its_cause_not_as_none():
    q = np.full((11, 2), 1e-3)
    v = _traj(q, np.repeat(q, 2, axis=0)[:21], None, half_status="failed")
    assert v["tolerance_rad"] is None and v["verdict"] == "INCONCLUSIVE"
    assert "None" not in v["inconclusive_because"]
    assert "no error estimate (the dt/2 run failed: engine raised: boom)" in v["inconclusive_because"]


def test_model_differs_only_above_what_rounding_amplified_by_the_motion_leaves():
    """The same-scheme error is judged against 1e-8 rad + 10 × the same-scheme run's change from a start moved by
    the run's accumulated round-off: above it the model differs; a sensitive motion raises it; an unknown
    sensitivity leaves the difference unseparated (INCONCLUSIVE), never "model differs"."""
    q = np.full((11, 2), 1e-3)
    half = np.repeat(q, 2, axis=0)[:21]
    half[::2] += 1e-6  # the dt/2 run differs by 1e-6 rad: Richardson estimate 2e-6, tolerance 2e-5 rad
    # same-scheme error 5e-7 rad on a motion whose rerun moves 1e-7 rad: within 1e-8 + 1e-6 rad
    v = _traj(q, half, q + 5e-7, sensitivity=1e-7)
    assert v["verdict"] == "PASS" and v["same_integrator_tolerance_rad"] == pytest.approx(1e-8 + 1e-6)
    # the same error on an insensitive motion (rerun moves 1e-13 rad): the model differs
    v = _traj(q, half, q + 5e-7)
    assert v["verdict"] == "FAIL" and "model differs" in v["failed_because"]
    assert "differing by 1e-13 rad" in v["failed_because"]
    # the rerun failed: sensitivity unknown, so the difference is not called a model difference
    v = _traj(q, half, q + 5e-7, sensitivity=None)
    assert v["verdict"] == "INCONCLUSIVE" and "not separable" in v["inconclusive_because"]


def test_a_fail_line_never_also_says_not_judged():
    """Issue 38: the same-scheme error says "model differs" while the error against the reference cannot be judged
    (the dt/2 run differs by 0.05 rad: a tolerance past the bound).  The FAIL line holds the failure alone; what
    was not judged is kept apart and becomes an INCONCLUSIVE line of its own."""
    from crossdyn.comparison.compare import engine_failures, engine_inconclusive
    from crossdyn.comparison.result import EngineRun, MetricResult

    q = np.full((11, 2), 1e-3)
    half = np.repeat(q, 2, axis=0)[:21]
    half[::2] += 0.05
    v = _traj(q, half, q + 5e-7)
    assert v["verdict"] == "FAIL" and "model differs" in v["failed_because"]
    assert "not judged" not in v["failed_because"]
    assert "too sensitive" in v["also_inconclusive_because"] and "model differs" not in v["also_inconclusive_because"]
    # issue 39: each line says which check it is, and what the FAIL means
    assert "vs crossdyn's replica of its scheme (analytic " in v["failed_because"]
    assert "same scheme, so model error alone" in v["failed_because"] and "the engine's model differs" in v["failed_because"]
    assert v["also_inconclusive_because"].startswith("the check against the exact reference could not be judged: ")
    runs = {"e": EngineRun("e", metrics={"trajectory": MetricResult("trajectory", v)})}
    failures = engine_failures(runs, False, SimpleNamespace(status="ok"))
    inconclusive = engine_inconclusive(runs)
    assert len(failures) == 1 and "not judged" not in failures[0]
    assert len(inconclusive) == 1 and "model differs" not in inconclusive[0] and "not judged" in inconclusive[0]


def test_trajectory_float32_round_off_is_part_of_both_tolerances():
    q = np.full((501, 2), 1e-3)
    half = np.repeat(q, 2, axis=0)[:1001]
    v64 = _traj(q, half, q + 2e-6)
    assert not v64["pass"] and "precision" not in v64
    v32 = _traj(q, half, q + 2e-6, dtype="float32")
    assert v32["pass"], v32
    assert v32["same_integrator_tolerance_rad"] == pytest.approx(1e-8 + 3.07e-5)
    assert v32["precision"]["origin"].startswith("float32 round-off: 10 × measured float32 growth 3.07e-06 rad")
    v32 = _traj(q, half, q + 1e-3, dtype="float32")  # a real difference still fails
    assert not v32["pass"] and "float32 round-off" in v32["failed_because"]


def test_a_motion_that_amplifies_float32_round_off_raises_the_term_by_what_it_makes_of_it():
    """The float32 term was measured on smooth motions; the same-scheme rerun from a start moved by that measured
    growth (3.07e-6 rad at 1 s) says what this motion makes of round-off of the engine's size.  On planar2r-floor's
    five bounces it changed by 1.04e-4 rad (34x), and Newton and MuJoCo Warp departed from their same-scheme run by
    8.7e-5 rad: a false FAIL against 3.07e-5 rad before, judged against 10 x 1.04e-4 rad now."""
    q = np.full((501, 2), 1e-3)
    half = np.repeat(q, 2, axis=0)[:1001]
    before = _traj(q, half, q + 8.7e-5, dtype="float32")
    assert before["verdict"] == "FAIL"                         # the bounce's amplification was not seen
    v = _traj(q, half, q + 8.7e-5, dtype="float32", dtype_sensitivity=1.04e-4)
    assert v["verdict"] == "PASS", v
    assert v["precision"]["roundoff_term_rad"] == pytest.approx(1.04e-3)
    assert v["precision"]["origin"].startswith("float32 round-off amplified by this motion: 10 × 0.000104 rad")
    # a smooth motion makes of it what was measured: the term stays the measured one
    v = _traj(q, half, q + 2e-6, dtype="float32", dtype_sensitivity=3.0e-6)
    assert v["precision"]["roundoff_term_rad"] == pytest.approx(3.07e-5)
    # a real difference still fails beyond the amplified term
    v = _traj(q, half, q + 5e-3, dtype="float32", dtype_sensitivity=1.04e-4)
    assert v["verdict"] == "FAIL" and "amplified by this motion" in v["failed_because"]


def test_batch_float32_tolerance_is_derived_and_stated():
    tol, origin = tolerance_for("float32", BatchOptions(duration=1.0))
    assert tol == pytest.approx(1e-8 + 3.07e-5) and "float32 round-off" in origin
    assert tolerance_for("float64", BatchOptions()) == (1e-8, "same integrator, float64 rounding: 1e-08 rad")
    assert tolerance_for("float32", BatchOptions(float32_rad=1e-3))[0] == 1e-3


def test_the_report_states_each_round_off_term_and_its_origin():
    from crossdyn.reporting.blocks.metrics import dynamics_blocks, trajectory_blocks

    spec = get_preset("planar3r")
    st = static_states(spec, 5, 0)
    mm = _groups(spec, st, _values(spec, st), "float32")["mass_matrix"]
    summary = {"engines": {"mjx": {"mass_matrix": mm}, "mujoco": {"mass_matrix": {"max_abs_error": 0.0,
                                                                                  "tolerance": 1e-9, "pass": True}}}}
    blocks = dynamics_blocks({**summary, "tolerances": {}})
    text = [b[1] for b in blocks if b[0] == "p"][-1]
    assert text.startswith("mjx computes in float32; its tolerances include float32 round-off: mass_matrix + ")
    assert "100 × eps" in text and "mujoco" not in text
    assert trajectory_blocks({**summary, "tolerances": {}})[-1][0] == "table"  # no trajectory term: no paragraph


def test_the_torque_round_off_scales_with_the_torque_at_the_states_not_only_the_gravity_scale():
    # at q̇ up to 10 rad/s and q̈ up to 50 rad/s² the inertial terms dominate τ: float32 rounds τ relative to its own
    # magnitude (MuJoCo Warp and Newton on a 4R arm: 3.9 and 5.7 eps of max|τ| = 924 N m, torque scale 45 N m)
    spec = get_preset("planar4r")
    st = static_states(spec, 50, 0)
    peak = float(np.max(np.abs(st.tau_ref)))
    assert peak > 5 * spec.torque_scale()
    v = _groups(spec, st, _values(spec, st), "float32")["inverse_dynamics"]
    assert v["precision"]["roundoff_term"] == pytest.approx(100 * EPS32 * peak)
    tilted = _values(spec, st)
    tilted = static.StaticValues(tilted.tau + 6 * EPS32 * peak, tilted.M, tilted.qdd)  # a 6-eps float32 engine
    assert _groups(spec, st, tilted, "float32")["inverse_dynamics"]["pass"]
