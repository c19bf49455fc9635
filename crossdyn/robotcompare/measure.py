"""Measure one file engine against crossdyn's spatial reference: :func:`measure_file_engine`.

The metric groups and their tolerances are the planar comparison's (:mod:`crossdyn.comparison.tolerances`):

* ``trajectory``: the engine's run under the torque sequence against the reference (DOP853), tolerance
  ``trajectory_factor`` × its own Richardson estimate from a dt/2 rerun (τ held for dt) + ``trajectory_floor_rad``,
  bounded by 5 % of the reference's largest joint range (past it: INCONCLUSIVE); and, where the engine's scheme is
  one crossdyn can run (:func:`crossdyn.comparison.groups.trajectory.replica_scheme`, the planar arms' choice), the
  engine against crossdyn's model stepped by that scheme at the same dt (model error alone: 1e-8 rad + the motion's
  sensitivity to round-off) (:func:`crossdyn.comparison.groups.trajectory.trajectory_group`, its tip the last
  body's origin);
* ``inverse_dynamics``, ``mass_matrix`` at the random states: 1e-9 relative to the largest reference torque, to
  max|M| (:mod:`crossdyn.comparison.groups.static`, the engine's batched queries); ``forward_dynamics``: 1e-9 of
  max(1, max|q̈|), or per state what those two tolerances allow through M⁻¹ where that is more, bounded
  (:mod:`crossdyn.comparison.groups.fd_propagated`);
* ``energy``: the work–energy balance of the driven run, E(t) − E(0) − ∫τ·q̇ dt + ∫b q̇² dt with E from crossdyn's
  model on the engine's states; tolerance the larger of the scheme's energy tolerance and ``trajectory_factor`` ×
  the balance's Richardson estimate, bounded by 5 % of E_scale (:func:`crossdyn.comparison.groups.energy.balance_group`,
  the planar arms' balance; no free swing here);
* ``speed`` (µs per step) and ``tracking`` (the reference's distance from q_d), reported, not judged.

An engine that cannot be built for the file (:class:`~crossdyn.errors.EngineUnsupported`, e.g. it cannot represent
the file's armature) is ``unsupported`` with its reason; one whose library raises is ``failed`` (reason kept);
crossdyn's own errors propagate (:func:`crossdyn.comparison.measure.contained_measurement`, the planar arms' too).

What differs from the planar measurement is the adapter only: the reference (crossdyn's spatial RNEA/ABA/CRBA on the
:class:`~crossdyn.robots.model.RobotModel` rather than the closed-form planar model), the motion (the
tracking law of :mod:`crossdyn.robotcompare.motion` rather than a profile), the engine (a
:class:`~crossdyn.engines.files.base.FileEngine`, stepped under held torques and queried in batches) and E (crossdyn's
model on the engine's states rather than the engine's own energy).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.groups import derivatives, energy, fd_propagated, static
from crossdyn.comparison.groups.trajectory import (ORDER, SideRuns, perturbation, replica_scheme, scheme_of,
                                                   trajectory_group)
from crossdyn.comparison.measure import contained_measurement
from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.result import EngineRun, MetricResult, RunRecord
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.conventions import JointUnits
from crossdyn.errors import EngineUnsupported
from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare import runs
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
    law: Callable[[int, np.ndarray, np.ndarray], np.ndarray] | None = None
    """The feedback law every run applies on its own state at each hold interval (τ_k = law(k, q_k, q̇_k), the
    reference's: :class:`crossdyn.robotcompare.motion.TrackingLaw`); None: ``taus`` open loop."""
    effort: Any = None
    """``--effort``: the law's :class:`~crossdyn.robotcompare.effort.EffortLaw` (its clip is in ``law``), whose
    ``effort`` group each engine's driven run gets; None: no effort group."""
    derivatives: bool = False
    """``--derivatives``: the ``derivatives`` group for each engine that offers them."""

    def file_model(self, spec: str) -> RobotModel:
        """The model (and file) engine ``spec`` loads."""
        got = self.model if self.files is None else self.files(spec)
        if isinstance(got, str):
            raise EngineUnsupported(got)
        return got


def build_file_engine(spec: str, model: RobotModel, dt: float):
    """The engine ``spec`` on ``model``: a file engine (:func:`crossdyn.engines.files.make_file_engine`), or the
    user's equations for ``user:FILE`` (:mod:`crossdyn.robotcompare.user_engine`).  The robot files' counterpart of
    the planar :func:`crossdyn.comparison.containment.build_engine` (another factory, another interface: a
    :class:`~crossdyn.engines.files.base.FileEngine`); not contained here, the caller is."""
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
    round-off its arithmetic leaves through M⁻¹ (:func:`crossdyn.comparison.groups.fd_propagated.roundoff_qdd`, the
    largest over the static states), which moves q by at most ½ δq̈ T² over T without amplification by the motion.
    The planar term (measured growth on arms with cond(M) ≤ 400) stays the floor: on an ill-conditioned robot (UR5e
    URDF, light wrist: cond(M) ≈ 3e4) float32 moves q by 1e-2 rad in 2 s, measured (Newton against crossdyn's own
    semi-implicit Euler), and this term then exceeds the trajectory bound: INCONCLUSIVE, never a FAIL of float32
    round-off."""
    from crossdyn.engines import precision

    if precision.is_float64(dtype):
        return None
    qdd = float(np.max(fd_propagated.roundoff_qdd(job.static, job.torque_scale, dtype)))
    term = 0.5 * qdd * job.duration ** 2
    units = joint_units(job.model)
    return term, (f"{dtype} round-off through forward dynamics: ½ × δq̈ {qdd:.3g} {units.word('acceleration')} (the "
                  f"largest ‖M⁻¹‖_∞ (100 eps × the torque scale + 100 eps × max|M| × ‖q̈‖₁) at the static states) × "
                  f"T² ({job.duration:g} s)² = {term:.3g} {units.word()}")


def joint_units(model: RobotModel) -> JointUnits:
    """The units of the model's joints for the reason lines: rad for a revolute joint, m for a prismatic one
    (:class:`crossdyn.conventions.JointUnits`)."""
    return JointUnits(tuple(j.type.rotates for j in model.joints), model.joint_names)


ORDERS = {**ORDER, "rk2": 2, "rk3": 3, "rk5": 5, "implicit-euler": 1}
"""Order of each scheme (the planar table, plus Drake's fixed-step RK2, RK3, RK5 and implicit Euler)."""


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
        half_engine = build_file_engine(spec, job.file_model(spec), job.dt / 2)
        try:
            half = _not_refined(driven, runs.step_engine(half_engine, job.taus, job.q0, job.qd0, job.dt,
                                                         substeps=2, law=job.law))
        finally:
            half_engine.close()
        integrator = str(engine.integrator)
        scheme = replica_scheme(scheme_of(integrator), engine.config(), bool(np.any(damping(job.model) != 0)))
    delta = perturbation(job.q0, job.dt, job.duration)
    same = perturbed = None
    if scheme is not None:
        if scheme not in same_cache:
            same_cache[scheme] = tuple(runs.integrate_batch(job.model, scheme, job.taus,
                                                            np.stack([job.q0, job.q0 + delta]),
                                                            np.stack([job.qd0, job.qd0]), job.dt, job.law))
        same, perturbed = same_cache[scheme]
    order = ORDERS.get(scheme or scheme_of(integrator), 1)
    dtype = dtype_of(engine)
    return SideRuns(order, integrator, half, None, scheme, same, dtype, perturbed, delta, job.dt,
                    trajectory_roundoff(job, dtype))


def energy_of_file(driven, half, job: RobotJob, side: SideRuns) -> MetricResult:
    """The ``energy`` group (:func:`crossdyn.comparison.groups.energy.balance_group`) of the driven run: E from
    crossdyn's model on the engine's states (:func:`crossdyn.robotcompare.runs.kinetic_potential`), the file's
    damping b in the balance, no Coulomb term (neither side simulates it) and no free swing."""
    b, fc, dt = damping(job.model), np.zeros(job.model.n), job.dt
    residual = metrics.work_energy_residual(driven.q, driven.qd, driven.tau, runs.kinetic_potential(
        job.model, driven.q, driven.qd), dt, b, fc)
    half_residual = None
    if half is not None and half.status == "ok":
        half_residual = metrics.work_energy_residual(half.q, half.qd, half.tau, runs.kinetic_potential(
            job.model, half.q, half.qd), dt / 2, b, fc)[::2]
    bal = energy.Balance(residual, half_residual, job.energy_scale, side.order,
                         side.scheme or scheme_of(side.integrator), side.dtype, job.duration, dt)
    return energy.balance_group(bal, job.tolerances, len(residual), [], {"max_rel_drift": None}, {})


def static_groups(engine, job: RobotJob, values: static.StaticValues) -> list[MetricResult]:
    """``inverse_dynamics``, ``forward_dynamics`` (its tolerance propagated through M⁻¹), ``mass_matrix`` at the
    random states, from ``values``: the engine's batched queries there
    (:func:`crossdyn.comparison.groups.static.evaluate`)."""
    st = job.static
    tol, dtype = job.tolerances, dtype_of(engine)
    return [static.inverse_dynamics_scaled(job.torque_scale, st, values, tol, dtype),
            fd_propagated.propagated_forward_dynamics_group(st, values.qdd, tol, job.torque_scale, dtype),
            static.mass_matrix_group(st, values, tol, dtype)]


def _measure_file_engine(record: RunRecord, spec: str, job: RobotJob, same_cache: dict, say: Say) -> None:
    with engine_code():
        engine = build_file_engine(spec, job.file_model(spec), job.dt)
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
        driven = runs.step_engine(engine, job.taus, job.q0, job.qd0, job.dt, law=job.law)
    wall = time.perf_counter() - start
    record.driven = driven
    if driven.status != "ok":
        record.status, record.reason = RunStatus.DIVERGED, driven.message
    side = _side_runs(spec, engine, driven, job, same_cache)
    record.add(trajectory_group(driven, job.reference, side, job.tolerances,
                                lambda q: runs.tip_positions(job.model, q), joint_units(job.model)))
    say(f"[{job.model.name}] {spec}: inverse/forward dynamics and mass matrix at {len(job.static.q)} states")
    values = static.evaluate(engine, job.static, batched=True)
    for group in static_groups(engine, job, values):
        record.add(group)
    record.add(energy_of_file(driven, side.half, job, side))
    record.add(energy.speed_group(wall, max(len(job.taus), 1)))
    if job.effort is not None:
        from crossdyn.robotcompare.effort import file_effort_group

        record.add(file_effort_group(job.model, job.effort, driven.tau, job.taus, record.config.get("effort_limits")))
    if job.derivatives and derivatives.offers(spec):
        say(f"[{job.model.name}] {spec}: derivatives at {min(len(job.static.q), derivatives.MAX_STATES)} states")
        record.add(derivatives.derivatives_group(spec, job.file_model(spec), job.static.q, job.static.qd,
                                                 job.static.tau, job.dt, rollout=True))
    _judge_ambiguity(record, spec, job, values)


def _judge_ambiguity(record: RunRecord, spec: str, job: RobotJob, values: static.StaticValues) -> None:
    """Where a static group FAILs on a file with ambiguous links and the engine's ID and M match crossdyn's model
    with another reading of them, every FAIL group of the engine becomes INCONCLUSIVE naming the ambiguity and the
    reading (:mod:`crossdyn.robotcompare.ambiguity`); the reading is kept in the engine's config."""
    from crossdyn.robotcompare import ambiguity

    if not any(record.metrics[g].verdict is Verdict.FAIL for g in ambiguity.STATIC if g in record.metrics):
        return
    match = ambiguity.reading_of(job.model, job.static, values, record.metrics)
    if match is None:
        return
    record.metrics = ambiguity.judged_ambiguous(record.metrics, match, spec)
    record.config["ambiguity_reading"] = match.words(spec)


def measure_file_engine(spec: str, job: RobotJob, same_cache: dict, say: Say) -> EngineRun:
    """One engine's :class:`EngineRun` on the robot: unsupported, failed (the library raised) or measured
    (:func:`crossdyn.comparison.measure.contained_measurement`, as every planar engine's)."""
    record = RunRecord(spec)
    return contained_measurement(record, lambda: _measure_file_engine(record, spec, job, same_cache, say), say,
                                 job.model.name)
