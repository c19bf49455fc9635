"""Measure one file engine against crossdyn's spatial reference: :func:`measure_engine`.

The metric groups and their tolerances are the planar comparison's (:mod:`crossdyn.comparison.tolerances`):

* ``trajectory``: the engine's run under the torque sequence against the reference (DOP853), tolerance
  ``trajectory_factor`` × its own Richardson estimate from a dt/2 rerun (τ held for dt) + ``trajectory_floor_rad``,
  bounded by 5 % of the reference's largest joint range (past it: INCONCLUSIVE); and, where the engine's scheme is
  one crossdyn can run (``rk4``, ``semi-implicit-euler``, ``euler``), the engine against crossdyn's model stepped by
  that scheme at the same dt (model error alone: 1e-8 rad + the motion's sensitivity to round-off)
  (:func:`crossdyn.comparison.groups.trajectory.judge_trajectory`);
* ``inverse_dynamics``, ``mass_matrix`` at the random states: 1e-9 relative to the largest reference torque, to
  max|M| (:mod:`crossdyn.comparison.groups.static`); ``forward_dynamics``: 1e-9 of max(1, max|q̈|), or per state
  what those two tolerances allow through M⁻¹ where that is more, bounded (:mod:`crossdyn.robotcompare.fd_tolerance`);
* ``energy``: the work–energy balance of the driven run, E(t) − E(0) − ∫τ·q̇ dt + ∫b q̇² dt with E from crossdyn's
  model on the engine's states; tolerance the larger of the scheme's energy tolerance and ``trajectory_factor`` ×
  the balance's Richardson estimate, bounded by 5 % of E_scale (:func:`energy_group`);
* ``speed`` (µs per step) and ``tracking`` (the reference's distance from q_d), reported, not judged.

An engine that cannot be built for the file (:class:`~crossdyn.errors.EngineUnsupported`, e.g. it cannot represent
the file's armature) is ``unsupported`` with its reason; one whose library raises is ``failed`` (reason kept);
crossdyn's own errors propagate.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import engine_code, failure_reason
from crossdyn.comparison.groups import static
from crossdyn.comparison.groups.energy import speed_group
from crossdyn.comparison.groups.trajectory import ORDER, SideRuns, judge_trajectory, perturbation
from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.result import EngineRun, MetricResult, RunRecord, judge
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare import fd_tolerance, runs
from crossdyn.robotcompare.motion import damping
from crossdyn.status import RunStatus, Verdict

Say = Callable[[str], None]


@dataclass(frozen=True)
class RobotJob:
    """What every engine is measured with (computed once): the model, the torque sequence and start, the
    reference run, the static states with the reference's values, and the scales."""

    model: RobotModel
    dt: float
    duration: float
    taus: np.ndarray
    q0: np.ndarray
    qd0: np.ndarray
    reference: Any
    static: StaticStates
    torque_scale: float
    energy_scale: float
    tolerances: Tolerances
    files: Callable[[str], RobotModel | str] | None = None
    """Engine spec → the model (its ``source``: the file) that engine loads; None: every engine loads ``model``'s
    file (a robot file); a string: why that engine cannot load the arm.  A spatial arm spec's engines load the URDF or MJCF crossdyn wrote of it, while the
    reference stays the spec's own model (:mod:`crossdyn.robotcompare.spatial`)."""

    def file_model(self, spec: str) -> RobotModel:
        """The model (and file) engine ``spec`` loads."""
        got = self.model if self.files is None else self.files(spec)
        if isinstance(got, str):
            raise EngineUnsupported(got)
        return got


def build_engine(spec: str, model: RobotModel, dt: float):
    """The engine ``spec`` on ``model``: a file engine (:func:`crossdyn.engines.files.make_file_engine`), or the
    user's equations for ``user:FILE`` (:mod:`crossdyn.robotcompare.user_engine`)."""
    if spec.startswith("user:"):
        from crossdyn.robotcompare.user_engine import UserEquationsFileEngine

        engine = UserEquationsFileEngine(model, dt, path=spec[len("user:"):])
        engine.name = spec
        return engine
    from crossdyn.engines.files import make_file_engine

    return make_file_engine(spec, model, dt)


def dtype_of(engine) -> str:
    """The floating-point type the engine computes in (``float64`` unless it declares another: ``mujoco-warp`` and
    ``newton`` are float32); a narrower one adds its round-off term to every group's tolerance
    (:mod:`crossdyn.engines.precision`)."""
    return str(getattr(engine, "dtype", "float64") or "float64")


def trajectory_roundoff(job: RobotJob, dtype: str) -> tuple[float, str] | None:
    """A float32 engine's trajectory term for this robot (None for float64): each step's q̈ carries up to the
    round-off its arithmetic leaves through M⁻¹ (:func:`crossdyn.robotcompare.fd_tolerance.roundoff_qdd`, the
    largest over the static states), which moves q by at most ½ δq̈ T² over T without amplification by the motion.
    The planar term (measured growth on arms with cond(M) ≤ 400) stays the floor: on an ill-conditioned robot (UR5e
    URDF, light wrist: cond(M) ≈ 3e4) float32 moves q by 1e-2 rad in 2 s, measured (Newton against crossdyn's own
    semi-implicit Euler), and this term then exceeds the trajectory bound: INCONCLUSIVE, never a FAIL of float32
    round-off."""
    from crossdyn.engines import precision

    if precision.is_float64(dtype):
        return None
    qdd = float(np.max(fd_tolerance.roundoff_qdd(job.static, job.torque_scale, dtype)))
    term = 0.5 * qdd * job.duration ** 2
    return term, (f"{dtype} round-off through forward dynamics: ½ × δq̈ {qdd:.3g} rad/s² (the largest ‖M⁻¹‖_∞ (100 eps "
                  f"× the torque scale + 100 eps × max|M| × ‖q̈‖₁) at the static states) × T² ({job.duration:g} s)² "
                  f"= {term:.3g} rad")


def scheme_of(integrator: str) -> str:
    """The engine's ``integrator`` (free text: ``"RK4"``, ``"semi-implicit Euler (PyBullet's only)"``, ``"rk4
    (crossdyn's, on Pinocchio's aba)"``) in crossdyn's names: ``rk4``, ``semi-implicit-euler`` (MuJoCo's ``Euler`` is
    semi-implicit: q̇ first, then q with the new q̇), ``rk3-adaptive`` (Drake's error-controlled RK3: no fixed-step
    scheme shares its arithmetic), ``mujoco-implicit``, or the text itself."""
    text = integrator.lower()
    if "error-controlled" in text or "adaptive" in text:
        return "rk3-adaptive"
    if "rk4" in text:
        return "rk4"
    if "rk3" in text:
        return "rk3"
    if "implicitfast" in text:
        return "mujoco-implicitfast"
    if "semi-implicit" in text or "symplectic" in text or text.strip() == "euler":
        return "semi-implicit-euler"
    if "implicit" in text:
        return "mujoco-implicit"
    return integrator


def same_scheme(engine, model: RobotModel) -> str | None:
    """The scheme crossdyn can step its own model with to do the engine's arithmetic, or None: the engine's
    integrator (:func:`scheme_of`) if crossdyn has it, except where the engine integrates the file's damping
    implicitly (MuJoCo ``Euler`` with eulerdamp, Drake's discrete solver), which no explicit scheme reproduces."""
    scheme = scheme_of(str(engine.integrator))
    config = engine.config()
    if np.any(damping(model) != 0) and (config.get("eulerdamp") or config.get("implicit_damping")):
        return None
    return scheme if scheme in runs.SCHEME_STEPS else None


ORDERS = {**ORDER, "rk3": 3}
"""Order of each scheme (the planar table, plus Drake's fixed-step RK3)."""


def _not_refined(driven, half):
    """``half`` unless it reproduces ``driven`` bit for bit on the dt grid: then the engine's step did not follow
    dt (a fixed ``time_step`` option, a discrete plant with its own period) and the rerun estimates nothing; it is
    returned as failed, saying so (the trajectory group is then INCONCLUSIVE, never PASS on a zero estimate)."""
    from dataclasses import replace

    if half.status != "ok" or driven.status != "ok" or len(half.q[::2]) != len(driven.q):
        return half
    if np.array_equal(half.q[::2], driven.q) and len(driven.q) > 1:
        return replace(half, status="failed", message="it reproduced the dt run bit for bit: the engine's own step "
                                                      "does not follow dt (a fixed time step?), so it estimates no "
                                                      "error")
    return half


def _side_runs(spec: str, engine, driven, job: RobotJob, same_cache: dict) -> SideRuns:
    """The dt/2 rerun (τ held for dt) and crossdyn's model stepped by the engine's scheme (and again from a start
    moved by the run's accumulated round-off, its sensitivity)."""
    with engine_code():
        half_engine = build_engine(spec, job.file_model(spec), job.dt / 2)
        try:
            half = _not_refined(driven, runs.step_engine(half_engine, job.taus, job.q0, job.qd0, job.dt,
                                                         substeps=2))
        finally:
            half_engine.close()
        scheme = same_scheme(engine, job.model)
        integrator = str(engine.integrator)
    delta = perturbation(job.q0, job.dt, job.duration)
    same = perturbed = None
    if scheme is not None:
        if scheme not in same_cache:
            same_cache[scheme] = tuple(runs.integrate_batch(job.model, scheme, job.taus,
                                                            np.stack([job.q0, job.q0 + delta]),
                                                            np.stack([job.qd0, job.qd0]), job.dt))
        same, perturbed = same_cache[scheme]
    order = ORDERS.get(scheme or scheme_of(integrator), 1)
    dtype = dtype_of(engine)
    return SideRuns(order, integrator, half, None, scheme, same, dtype, perturbed, delta, job.dt,
                    trajectory_roundoff(job, dtype))


def trajectory_group(driven, job: RobotJob, side: SideRuns) -> MetricResult:
    """The planar ``trajectory`` group on the robot: joint errors, the end effector's (the last body's origin)."""
    tol = job.tolerances
    k = min(len(driven.q), len(job.reference.q))
    ee = None
    if k:
        ee = float(np.max(np.linalg.norm(runs.tip_positions(job.model, driven.q[:k])
                                         - runs.tip_positions(job.model, job.reference.q[:k]), axis=-1)))
    traj = metrics.joint_trajectory_errors(driven.t, driven.q, job.reference.q, tol.divergence_rad, ee)
    return judge_trajectory(traj, driven, job.reference, side, tol)


def energy_group(driven, half, job: RobotJob, scheme: str, order: int, dtype: str = "float64") -> MetricResult:
    """Work–energy balance of the driven run (module docstring), relative to E_scale; a float32 engine's round-off
    (:func:`crossdyn.engines.precision.energy_roundoff`) added to the tolerance."""
    from crossdyn.engines import precision

    tol, dt, escale = job.tolerances, job.dt, job.energy_scale
    b = damping(job.model)
    fc = np.zeros(job.model.n)
    residual = metrics.work_energy_residual(driven.q, driven.qd, driven.tau, runs.kinetic_potential(
        job.model, driven.q, driven.qd), dt, b, fc)
    wer = float(np.max(np.abs(residual))) / escale
    estimate = None
    if half is not None and half.status == "ok":
        q2, qd2 = half.q, half.qd
        res_half = metrics.work_energy_residual(q2, qd2, half.tau, runs.kinetic_potential(job.model, q2, qd2),
                                                dt / 2, b, fc)[::2]
        k = min(len(residual), len(res_half))
        estimate = float(np.max(np.abs(residual[:k] - res_half[:k]))) * metrics.richardson_factor(order) / escale
    base = tol.energy_for(scheme) + precision.energy_roundoff(dtype, job.duration)
    limit = base if estimate is None else max(base, tol.trajectory_factor * estimate)
    values = {"work_energy_residual_rel": wer, "work_energy_richardson_estimate": estimate,
              "work_energy_tolerance": limit,
              "work_energy_tolerance_origin": f"max(the {scheme} energy tolerance {base:g}, {tol.trajectory_factor:g}"
                                              " × the balance's Richardson estimate "
                                              + ("(none: no dt/2 run)" if estimate is None else f"{estimate:.3g}")
                                              + ")",
              "work_energy_tolerance_bound": tol.energy_bound_fraction, "energy_scale_j": escale,
              "max_rel_drift": None, "tolerance": base,
              **({} if precision.is_float64(dtype) else {"precision": {
                  "dtype": dtype, "roundoff_term": precision.energy_roundoff(dtype, job.duration),
                  "origin": precision.energy_origin(dtype, job.duration)}})}
    checks = len(residual)
    if limit > tol.energy_bound_fraction:
        return MetricResult("energy", judge(values, Verdict.INCONCLUSIVE, checks, (
            f"the balance is too sensitive to judge at dt = {dt:g} s, so its tolerance {limit:.3g} exceeds the "
            f"bound {tol.energy_bound_fraction:g} (of E_scale); the work-energy residual {wer:.3g} is not judged")))
    because = None if wer <= limit else (f"work-energy residual {wer:.3g} > tolerance {limit:.3g} (relative to "
                                         f"E_scale = {escale:.4g} J)")
    return MetricResult("energy", judge(values, wer <= limit, checks, because))


def static_groups(engine, job: RobotJob) -> list[MetricResult]:
    """``inverse_dynamics``, ``forward_dynamics``, ``mass_matrix`` at the random states (batched calls)."""
    st = job.static
    with engine_code():
        values = static.StaticValues(np.asarray(engine.inverse_dynamics(st.q, st.qd, st.qdd), float),
                                     np.asarray(engine.mass_matrix(st.q), float),
                                     np.asarray(engine.forward_dynamics(st.q, st.qd, st.tau), float))
    tol, dtype = job.tolerances, dtype_of(engine)
    return [static.inverse_dynamics_scaled(job.torque_scale, st, values, tol, dtype),
            fd_tolerance.forward_dynamics_group(st, values.qdd, tol, job.torque_scale, dtype),
            static.mass_matrix_group(st, values, tol, dtype)]


def _measure(record: RunRecord, spec: str, job: RobotJob, same_cache: dict, say: Say) -> None:
    with engine_code():
        engine = build_engine(spec, job.file_model(spec), job.dt)
    try:
        _measure_built(record, spec, engine, job, same_cache, say)
    finally:
        with engine_code():
            engine.close()


def _measure_built(record: RunRecord, spec: str, engine, job: RobotJob, same_cache: dict, say: Say) -> None:
    with engine_code():
        record.config = dict(engine.config())
    say(f"[{job.model.name}] {spec}: driven run ({len(job.taus)} steps of {job.dt:g} s) and its dt/2 rerun")
    start = time.perf_counter()
    with engine_code():
        driven = runs.step_engine(engine, job.taus, job.q0, job.qd0, job.dt)
    wall = time.perf_counter() - start
    record.driven = driven
    if driven.status != "ok":
        record.status, record.reason = RunStatus.DIVERGED, driven.message
    side = _side_runs(spec, engine, driven, job, same_cache)
    record.add(trajectory_group(driven, job, side))
    say(f"[{job.model.name}] {spec}: inverse/forward dynamics and mass matrix at {len(job.static.q)} states")
    for group in static_groups(engine, job):
        record.add(group)
    record.add(energy_group(driven, side.half, job, side.scheme or scheme_of(side.integrator), side.order,
                            side.dtype))
    record.add(speed_group(wall, max(len(job.taus), 1)))


def measure_engine(spec: str, job: RobotJob, same_cache: dict, say: Say) -> EngineRun:
    """One engine's :class:`EngineRun`: unsupported, failed (the library raised) or measured."""
    record = RunRecord(spec)
    try:
        _measure(record, spec, job, same_cache, say)
    except EngineUnsupported as e:
        record.status, record.reason = RunStatus.UNSUPPORTED, str(e)
        record.metrics.clear()
    except EngineError as e:
        record.status, record.reason = RunStatus.FAILED, failure_reason(e)
    except KeyboardInterrupt:
        record.status, record.reason = RunStatus.SKIPPED, "interrupted (Ctrl-C) while this engine ran"
    return record.freeze()
