"""Metric groups ``trajectory`` and ``tracking``: the driven run against the reference.

Tolerance: ``trajectory_factor`` × the engine's own Richardson estimate |q(dt) − q(dt/2)|·2ᵖ/(2ᵖ − 1) (the dt/2
run keeps the torque and every applied law — contact, limits, friction — held for dt, as the reference does, so
that it integrates the same held system: with the limit law evaluated every dt/2, RK4 on planar2r-limits
"estimated" 4.9e-3 rad for an error of 1.8e-9 rad) + ``trajectory_floor_rad``; and, where an analytic integrator performs the
same arithmetic, |q − q_analytic,same scheme| ≤ ``trajectory_same_integrator_rad`` (model error alone).  An engine
computing in a narrower dtype than float64 (MJX's float32) gets its measured round-off growth added to both
(:func:`crossdyn.engines.precision.trajectory_roundoff`; the summary states it under ``precision``).

**Sensitivity of the same-scheme comparison.**  The engine and the analytic model with its scheme round
differently; a sensitive motion (a stiff contact) amplifies that.  Its own error estimate: the same-scheme run
again from a start moved by δ = N·ε₆₄·max(1, max|q0|) rad on every joint (N steps, ε₆₄ = 2.2e-16: the run's
accumulated float64 round-off, linearly summed), and its largest change; the same-scheme tolerance adds
``trajectory_factor`` × that change.  An error above it is more than rounding amplified by this motion can leave,
so the line says "model differs" (separated); where the perturbed run did not complete, the difference cannot be
told from sensitivity and the check is INCONCLUSIVE, saying so.

**Sensitivity at the engine's own precision.**  The float32 term was measured on smooth motions; a stiff one
(five bounces on the floor) amplifies round-off more, and a float32 engine then departed from its same-scheme run
by 8.7e-5 rad against a 3.07e-5 rad term: a FAIL of crossdyn's own precision.  So for an engine narrower than
float64 the same-scheme run is repeated once more from a start moved by δ₃₂ = the measured round-off growth itself
(:func:`crossdyn.engines.precision.trajectory_roundoff` / ``TRAJECTORY_K``, 3.07e-6 rad at 1 s), and the round-off
term is ``TRAJECTORY_K`` × the larger of that growth and what this motion makes of it (:func:`_roundoff`): on a
smooth motion the two agree, on the floor drop the term grows 34-fold, so the run is judged on what rounding
of the engine's size can leave.

**Upper bound** (:mod:`crossdyn.comparison.tolerances`): a derived tolerance — against the reference or the same
scheme — above ``trajectory_bound_fraction`` (5 %) of the reference's largest joint range over the run (that range
at least ``trajectory_bound_floor_rad``, 0.02 rad) judges nothing: that part is INCONCLUSIVE ("the run is too
sensitive to judge at dt = …: its own dt/2 rerun differs by … rad"), never PASS, and a departure beyond such a
tolerance is not called a FAIL either (the estimate itself is then unreliable).  A FAIL quotes only measured
figures (:func:`failure_reasons`); a missing tolerance (no dt/2 run) is stated with its cause.  A part that could not
be judged beside a part that failed is kept apart (``also_inconclusive_because``, an INCONCLUSIVE line of its own):
one line never says both that the model differs and that something was not judged.  Each line says which check it
is: the same-scheme FAIL names crossdyn's replica of the engine's scheme and what its failure means (same scheme,
so model error alone: the engine's model differs); the INCONCLUSIVE line beside it says that the check against the
exact reference could not be judged, and why.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from crossdyn.analytic.integrators import ORDERS
from crossdyn.comparison import metrics
from crossdyn.comparison.containment import build_engine, engine_code
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.comparison.start import desired_motion, held
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.conventions import ALL_REVOLUTE, JointUnits
from crossdyn.engines import precision
from crossdyn.status import Verdict

ORDER = {**ORDERS, "mujoco-implicit": 1, "mujoco-implicitfast": 1}
"""Order of accuracy of every scheme an engine reports (crossdyn's integrators, plus MuJoCo's implicit ones)."""

SAME_SCHEME_ENGINE = {"semi-implicit-euler": "analytic-euler", "rk4": "analytic-rk4",
                      "euler": "analytic-explicit-euler"}
"""The analytic engine that integrates with each scheme an engine may share."""


REPLICA_SCHEMES = tuple(SAME_SCHEME_ENGINE)
"""The fixed-step schemes crossdyn can step its own model with (the planar analytic engines', the robot files'
:data:`crossdyn.robotcompare.runs.SCHEME_STEPS`): the only ones an engine's run can be replicated by."""


def scheme_of(integrator: str) -> str:
    """An engine's ``integrator`` (free text: ``"RK4"``, ``"semi-implicit Euler (PyBullet's only)"``, ``"rk4
    (crossdyn's, on Pinocchio's aba)"``) in crossdyn's names: ``rk4``, ``semi-implicit-euler`` (MuJoCo's ``Euler`` is
    semi-implicit: q̇ first, then q with the new q̇), ``rk3-adaptive`` (Drake's error-controlled RK3: no fixed-step
    scheme shares its arithmetic), Drake's ``rk2``, ``rk3``, ``rk5`` and ``implicit-euler``, ``mujoco-implicit``, or
    the text itself.  The planar adapters already name their scheme in these words; the file engines' free text goes
    through here."""
    text = integrator.lower()
    if "error-controlled" in text or "adaptive" in text:
        return "rk3-adaptive"
    for order in ("rk4", "rk3", "rk5", "rk2"):
        if order in text:
            return order
    if "implicitfast" in text:
        return "mujoco-implicitfast"
    if "semi-implicit" in text or "symplectic" in text or text.strip() == "euler":
        return "semi-implicit-euler"
    if "implicit-euler" in text or "implicit_euler" in text or "implicit euler" in text:
        return "implicit-euler"     # Drake's implicit_euler (Newton iterations), not MuJoCo's implicit
    if "implicit" in text:
        return "mujoco-implicit"
    return integrator


def replica_scheme(scheme: str, config: Mapping[str, Any], damped: bool) -> str | None:
    """The scheme crossdyn steps its own model with to do an engine's arithmetic, or None (pure; both worlds: the
    planar arms' :func:`same_integrator`, the robot files' :func:`crossdyn.robotcompare.measure.side_runs`).

    ``scheme``: the engine's integrator in crossdyn's names (:func:`scheme_of`); ``config``: its ``config()``;
    ``damped``: the arm has viscous joint damping.  It is ``scheme`` if that is one of :data:`REPLICA_SCHEMES`,
    except where the engine integrates the damping implicitly (``eulerdamp``: MuJoCo ``Euler``;
    ``implicit_damping``: Drake's discrete solver) on a damped arm, which no explicit scheme reproduces."""
    if damped and (config.get("eulerdamp") or config.get("implicit_damping")):
        return None
    return scheme if scheme in REPLICA_SCHEMES else None


def same_integrator(engine) -> str | None:
    """The analytic integrator that performs the same arithmetic as the planar ``engine``'s, or None: its
    ``integrator`` (named in crossdyn's terms by the planar adapters) through :func:`replica_scheme`; None for the
    analytic engine itself (it *is* the analytic model)."""
    from crossdyn.engines.analytic.planar import AnalyticEngine

    if isinstance(engine, AnalyticEngine):
        return None
    return replica_scheme(str(engine.integrator), engine.config(), engine.spec.has_damping)


def integration_order(engine) -> int:
    """The engine's own ``order`` where it states one (Drake's RK2/RK3/RK5), else from :data:`ORDER`."""
    order = engine.order
    return int(order) if order else ORDER.get(str(engine.integrator), 1)


@dataclass(frozen=True)
class SideRuns:
    """The engine's side runs of the trajectory group: at dt/2 (torque held for dt), at a tighter accuracy
    (error-controlled engines), and the analytic model with the same scheme."""

    order: int
    integrator: str
    """The engine's scheme as it names it (``engine.integrator``)."""
    half: Any
    tight: Any
    scheme: str | None
    same: Any
    dtype: str = "float64"
    """The engine's floating-point type (:attr:`crossdyn.engines.base.Engine.dtype`)."""
    perturbed: Any = None
    """The same-scheme run from the start moved by ``perturbation_rad`` (its sensitivity to round-off), or None."""
    perturbation_rad: float = 0.0
    dt: float | None = None
    roundoff: tuple[float, str] | None = None
    """A float32 engine's trajectory round-off term (rad) derived for this model and its origin, where the caller
    has one (a robot file: from cond(M), :func:`crossdyn.robotcompare.measure.trajectory_roundoff`); the larger of
    it and the measured planar growth is used."""
    perturbed_dtype: Any = None
    """For an engine narrower than float64: the same-scheme run from the start moved by ``perturbation_dtype_rad``
    (the dtype's measured round-off growth over the run), or None."""
    perturbation_dtype_rad: float = 0.0


def perturbation(q0, dt: float, duration: float) -> float:
    """δ = N·ε₆₄·max(1, max|q0|): the accumulated float64 round-off of an N-step run, summed linearly (rad)."""
    steps = max(int(round(duration / dt)), 1)
    return steps * float(np.finfo(np.float64).eps) * max(1.0, float(np.max(np.abs(q0))) if len(q0) else 1.0)


def side_runs(name: str, engine, job, same_cache: dict) -> SideRuns:
    """Run the dt/2, tighter-accuracy and same-scheme runs (engine code, contained).

    An error-controlled integrator's error is set by its accuracy target, not by dt: its internal steps may be
    shorter than dt/2, so the dt/2 run shares its error and Richardson underestimates it (drake on
    planar2r-floor's drop: error 1.3e-8 rad, 20x the dt/2 difference).  Its estimate is then the same run at
    1/10 of the target (1/100 gives the same, 1.23e-8 against 1.28e-8, at twice the cost)."""
    from crossdyn.drive.runner import run_engine

    spec, opt = job.spec, job.opt
    order = integration_order(engine)
    with engine_code(), build_engine(name, spec, opt.dt / 2, job.friction) as half_engine:
        half = run_engine(half_engine, held(job.profile, opt.dt), job.q0, job.qd0, opt.duration,
                          contact_hold=opt.dt, law_hold=opt.dt)
    tight = None
    if engine.error_controlled and engine.accuracy:
        tighter = engine.accuracy / 10
        with engine_code(), build_engine(name, spec, opt.dt, job.friction, accuracy=tighter) as tight_engine:
            tight = run_engine(tight_engine, job.profile, job.q0, job.qd0, opt.duration)
    with engine_code():
        scheme = same_integrator(engine)
        integrator = str(engine.integrator)
        dtype = str(getattr(engine, "dtype", "float64"))  # a user's engine may predate the attribute
    same = perturbed = perturbed_dtype = None
    delta = perturbation(job.q0, opt.dt, opt.duration)
    delta_dtype = precision.trajectory_roundoff(dtype, opt.duration) / precision.TRAJECTORY_K
    if scheme is not None:
        if scheme not in same_cache:
            same_cache[scheme] = same_scheme_runs(scheme, spec, job.profile, job.q0, job.qd0, opt.dt, opt.duration,
                                                  job.friction)
        same, perturbed = same_cache[scheme]
        if delta_dtype > 0:
            perturbed_dtype = _dtype_rerun(job, scheme, dtype, delta_dtype, same_cache)
    return SideRuns(order, integrator, half, tight, scheme, same, dtype, perturbed, delta, opt.dt,
                    perturbed_dtype=perturbed_dtype, perturbation_dtype_rad=delta_dtype)


def same_scheme_runs(scheme: str, spec, profile, q0, qd0, dt: float, duration: float, friction=None) -> tuple:
    """(run, run from q0 + δ) of crossdyn's model stepped by ``scheme`` (:data:`SAME_SCHEME_ENGINE`) under
    ``profile`` at ``dt``, δ = :func:`perturbation` (the same-scheme check and its round-off growth); one engine
    for both, reset between them."""
    from crossdyn.drive.runner import run_engine

    delta = perturbation(q0, dt, duration)
    ana = build_engine(SAME_SCHEME_ENGINE[scheme], spec, dt, friction)
    with engine_code():
        return (run_engine(ana, profile, q0, qd0, duration),
                run_engine(ana, profile, np.asarray(q0, float) + delta, qd0, duration))


def _dtype_rerun(job, scheme: str, dtype: str, delta: float, same_cache: dict):
    """The same-scheme run from the start moved by ``delta`` (the ``dtype``'s round-off growth), cached per
    (scheme, dtype)."""
    from crossdyn.drive.runner import run_engine

    key = (scheme, dtype)
    if key not in same_cache:
        ana = build_engine(SAME_SCHEME_ENGINE[scheme], job.spec, job.opt.dt, job.friction)
        with engine_code():
            same_cache[key] = run_engine(ana, job.profile, np.asarray(job.q0, float) + delta, job.qd0,
                                         job.opt.duration)
    return same_cache[key]


def _tolerance(tol: Tolerances, estimate: float | None) -> float | None:
    if tol.trajectory_abs_rad is not None:
        return tol.trajectory_abs_rad
    if estimate is not None:
        return tol.trajectory_factor * estimate + tol.trajectory_floor_rad
    return None


def _estimates(driven, side: SideRuns) -> tuple[float | None, float | None, float | None]:
    """(self-consistency |q(dt) − q(dt/2)|, error estimate, accuracy estimate) in rad."""
    half_ok = side.half.status == "ok"
    q_half = side.half.q[::2]
    self_cons = metrics.max_abs(driven.q[: len(q_half)], q_half[: len(driven.q)]) if half_ok else None
    estimate = metrics.richardson_estimate(driven.q, q_half, side.order) if half_ok else None
    accuracy = None
    tight = side.tight
    if tight is not None and tight.status == "ok" and driven.status == "ok":
        accuracy = metrics.max_abs(driven.q[: len(tight.q)], tight.q[: len(driven.q)])
        estimate = accuracy if estimate is None else max(estimate, accuracy)
    return self_cons, estimate, accuracy


def _roundoff(driven, side: SideRuns, units: JointUnits = ALL_REVOLUTE) -> tuple[float, dict]:
    """The dtype's trajectory round-off term and the ``precision`` entry stating it ({} for float64); its words
    in the joints' unit (``units``)."""
    if precision.is_float64(side.dtype):
        return 0.0, {}
    duration = float(driven.t[-1] - driven.t[0]) if len(driven.t) else 0.0
    term = precision.trajectory_roundoff(side.dtype, duration)
    origin = precision.trajectory_origin(side.dtype, duration)
    amplified = _dtype_sensitivity(driven, side)
    if amplified is not None and precision.TRAJECTORY_K * amplified > term:
        term = precision.TRAJECTORY_K * amplified
        u = units.word()
        origin = (f"{side.dtype} round-off amplified by this motion: {precision.TRAJECTORY_K:g} × {amplified:.3g} "
                  f"{u}, the same-scheme run's change when its start moves by the measured {side.dtype} growth "
                  f"{side.perturbation_dtype_rad:.3g} {u} (above {origin})")
    if side.roundoff is not None and side.roundoff[0] > term:
        term, origin = side.roundoff
    return term, {"precision": {"dtype": side.dtype, "roundoff_term_rad": term, "origin": origin}}


def _dtype_sensitivity(driven, side: SideRuns) -> float | None:
    """The same-scheme run's largest change when its start moves by the dtype's round-off growth (rad), or None."""
    return _change(driven, side.same, side.perturbed_dtype)


def tolerance_bound(driven, reference, tol: Tolerances) -> tuple[float, float]:
    """(the reference's largest joint range over the compared run, the bound on a derived tolerance) in rad:
    ``trajectory_bound_fraction`` × max(range, ``trajectory_bound_floor_rad``) (module docstring)."""
    k = min(len(driven.q), len(reference.q))
    q = np.asarray(reference.q[:k], float)
    q = q[np.all(np.isfinite(q), axis=1)] if q.ndim == 2 else q
    rng = float(np.max(np.ptp(q, axis=0))) if len(q) else 0.0
    return rng, tol.trajectory_bound_fraction * max(rng, tol.trajectory_bound_floor_rad)


def _ranges(driven, reference) -> list[float] | None:
    """Each joint's range over the compared run of the reference (the joint whose range sets the bound), or
    None where it has no finite sample."""
    k = min(len(driven.q), len(reference.q))
    q = np.asarray(reference.q[:k], float)
    if q.ndim != 2:
        return None
    q = q[np.all(np.isfinite(q), axis=1)]
    return np.ptp(q, axis=0).tolist() if len(q) else None


def _sensitivity(driven, side: SideRuns) -> float | None:
    """The same-scheme run's largest change when its start moves by δ (rad); None without a completed rerun."""
    return _change(driven, side.same, side.perturbed)


def _change(driven, same, pert) -> float | None:
    """max |q_pert − q_same| over the driven run's length (rad); None unless both runs completed."""
    if same is None or pert is None or pert.status != "ok" or same.status != "ok":
        return None
    k = min(len(same.q), len(pert.q), len(driven.q))
    return metrics.max_abs(same.q[:k], pert.q[:k])


@dataclass(frozen=True)
class _Judged:
    """Which parts of the group hold (``ok_*``), and which tolerances exceed their bound (``wide_*``)."""

    ok_ref: bool
    ok_same: bool
    wide_ref: bool
    wide_same: bool
    same_tol: float
    units: JointUnits = ALL_REVOLUTE
    """The joints' units the reason lines write (:class:`crossdyn.conventions.JointUnits`; planar: rad)."""
    same_per_joint: tuple[float, ...] | None = None
    """max |q − q_same scheme| per joint (which joint the same-scheme error is of)."""


Tip = Callable[[np.ndarray], np.ndarray]
"""The end effector's position at each of K joint vectors, (K, n) → (K, d): the planar arm's forward kinematics
(:func:`planar_tip`) or a robot file's last body origin (:func:`crossdyn.robotcompare.runs.tip_positions`)."""


def planar_tip(params) -> Tip:
    """The planar arm's tip position, :func:`crossdyn.analytic.kinematics.end_effector` with ``params``."""
    from crossdyn.analytic.kinematics import end_effector

    return lambda q: end_effector(params, q)


def tip_error(tip: Tip, q, q_ref) -> float | None:
    """max ‖tip(q) − tip(q_ref)‖ over the common prefix (m); None where the runs share no sample."""
    k = min(len(q), len(q_ref))
    if not k:
        return None
    return float(np.max(np.linalg.norm(tip(q[:k]) - tip(q_ref[:k]), axis=-1)))


def trajectory_group(driven, reference, side: SideRuns, tol: Tolerances, tip: Tip,
                     units: JointUnits = ALL_REVOLUTE) -> MetricResult:
    """Metric group ``trajectory`` of any arm (the planar presets, the textbook arms, the robot files): the joint
    errors against the reference and the end effector's (``tip``), their tolerance, the same-scheme error; each
    part PASS, FAIL or — past its bound or without an estimate — INCONCLUSIVE (module docstring).  ``units``: the
    joints' units its reason lines write (a prismatic joint's figures in m; the default, every joint in rad)."""
    traj = metrics.joint_trajectory_errors(driven.t, driven.q, reference.q, tol.divergence_rad,
                                           tip_error(tip, driven.q, reference.q))
    return judge_trajectory(traj, driven, reference, side, tol, units)


def judge_trajectory(traj: dict, driven, reference, side: SideRuns, tol: Tolerances,
                     units: JointUnits = ALL_REVOLUTE) -> MetricResult:
    """The ``trajectory`` group from the run's errors against the reference (``traj``, as
    :func:`crossdyn.comparison.metrics.joint_trajectory_errors` gives them): adds the tolerances and the
    same-scheme error, and judges (module docstring).  Any chain: the planar arms and the robot files; ``units``
    as :func:`trajectory_group`'s.  The summary's keys keep their ``_rad`` names whatever the joints."""
    self_cons, estimate, accuracy = _estimates(driven, side)
    roundoff, extra = _roundoff(driven, side, units)
    traj_tol = _tolerance(tol, estimate)
    if traj_tol is not None and extra:
        traj_tol += roundoff
    sens = _sensitivity(driven, side)
    same_tol = tol.trajectory_same_integrator_rad + roundoff + tol.trajectory_factor * (sens or 0.0)
    rng, bound = tolerance_bound(driven, reference, tol)
    traj.update(self_consistency_rad=self_cons, richardson_estimate_rad=estimate, integration_order=side.order,
                accuracy_estimate_rad=accuracy, tolerance_rad=traj_tol, reference_range_rad=rng,
                tolerance_bound_rad=bound,
                tolerance_bound_origin=f"{100 * tol.trajectory_bound_fraction:g} % of the reference's largest joint "
                                       f"range over the run, {rng:.3g} {units.at(_ranges(driven, reference))}, "
                                       f"taken as at least "
                                       f"{tol.trajectory_bound_floor_rad:g} {units.word()}")
    scheme = side.scheme
    traj["same_integrator"] = scheme
    same_per_joint = None
    if side.same is not None:
        same = side.same
        traj["same_integrator_error_rad"] = metrics.max_abs(driven.q[: len(same.q)], same.q[: len(driven.q)])
        same_per_joint = _per_joint(driven.q, same.q)
        traj["same_integrator_tolerance_rad"] = same_tol
        traj["same_integrator_sensitivity_rad"] = sens
        traj["same_integrator_perturbation_rad"] = side.perturbation_rad
    else:
        traj["same_integrator_error_rad"] = None
    traj.update(extra)
    j = _Judged(same_tol=same_tol, ok_ref=_within(traj["max_abs_error_rad"], traj_tol),
                ok_same=scheme is None or _within(traj["same_integrator_error_rad"], same_tol),
                wide_ref=tol.trajectory_abs_rad is None and traj_tol is not None and traj_tol > bound,
                wide_same=side.same is not None and (same_tol > bound or (sens is None and not _within(
                    traj["same_integrator_error_rad"], same_tol))), units=units, same_per_joint=same_per_joint)
    checks = min(len(driven.q), len(reference.q))  # samples compared with the reference
    failed = failure_reasons(traj, driven, side, j)
    unjudged = inconclusive_reasons(traj, side, j)
    if failed:  # what could not be judged beside a FAIL goes on a line of its own (an INCONCLUSIVE one)
        if unjudged:
            traj["also_inconclusive_because"] = "; ".join(_named_checks(traj, j, unjudged))
        return MetricResult("trajectory", judge(traj, False, checks, "; ".join(failed)))
    if unjudged:
        return MetricResult("trajectory", judge(traj, Verdict.INCONCLUSIVE, checks, "; ".join(unjudged)))
    return MetricResult("trajectory", judge(traj, True, checks))


def _named_checks(traj: dict, j: _Judged, unjudged: list[str]) -> list[str]:
    """The reasons of :func:`inconclusive_reasons`, each headed by the check it concerns (said beside a FAIL of
    the other check): the first is the exact reference's when that check was not judged, the rest the replica's."""
    ref = (traj["tolerance_rad"] is None and traj["max_abs_error_rad"] is not None) or j.wide_ref
    return [("the check against the exact reference could not be judged: " if ref and i == 0 else
             "the check against crossdyn's replica of its scheme could not be judged: ") + why
            for i, why in enumerate(unjudged)]


def inconclusive_reasons(traj: dict, side: SideRuns, j: _Judged) -> list[str]:
    """Why a part of the group could not be judged: no tolerance, a tolerance past its bound, or a same-scheme
    error whose sensitivity is unknown (module docstring).  Each figure in its joints' unit (``j.units``)."""
    why = []
    err, traj_tol, bound = traj["max_abs_error_rad"], traj["tolerance_rad"], traj["tolerance_bound_rad"]
    u, u_err = j.units.word(), j.units.at(traj.get("max_abs_error_per_joint_rad"))
    dt = f"{side.dt:g} s" if side.dt else "this dt"
    scale = traj["tolerance_bound_origin"]
    if traj_tol is None and err is not None:
        half = side.half
        cause = f"the dt/2 run {half.status}" + (f": {half.message}" if getattr(half, "message", None) else "")
        why.append(f"max error vs reference {err:.3g} {u_err}, no tolerance to judge it by: no error estimate "
                   f"({cause})")
    elif j.wide_ref:
        rerun = traj["self_consistency_rad"]
        moved = (f"its own dt/2 rerun differs by {rerun:.3g} {u}" if rerun is not None
                 else f"its error estimate is {traj['richardson_estimate_rad']:.3g} {u}")
        why.append(f"the run is too sensitive to judge at dt = {dt}: {moved}, so its tolerance "
                   f"{traj_tol:.3g} {u} exceeds the bound {bound:.3g} {u} = {scale}; the error vs reference "
                   f"{err:.3g} {u_err} is not judged; lower dt or choose a less sensitive motion")
    same_err, sens = traj["same_integrator_error_rad"], traj.get("same_integrator_sensitivity_rad")
    u_same = j.units.at(j.same_per_joint)
    if side.scheme is not None and same_err is None:
        why.append(f"no error vs analytic {side.scheme} (its run did not complete)")
    elif j.wide_same and same_err is not None and sens is None:
        why.append(f"error vs analytic {side.scheme} {same_err:.3g} {u_same}: model difference or sensitivity of "
                   f"the motion not separable (its rerun from a start moved by {side.perturbation_rad:.2g} {u} did "
                   f"not complete)")
    elif j.wide_same and same_err is not None and traj.get("precision", {}).get("roundoff_term_rad", 0.0) > bound:
        prec = traj["precision"]
        why.append(f"the {prec['dtype']} round-off term {prec['roundoff_term_rad']:.3g} {u} ({prec['origin']}) "
                   f"exceeds the bound {bound:.3g} {u} = {scale}: the error vs analytic {side.scheme} "
                   f"{same_err:.3g} {u_same} is not judged")
    elif j.wide_same and same_err is not None:
        why.append(f"the motion is too sensitive to judge against analytic {side.scheme} at dt = {dt}: its rerun "
                   f"from a start moved by {side.perturbation_rad:.2g} {u} differs by {sens:.3g} {u}, so the "
                   f"tolerance {j.same_tol:.3g} {u} exceeds the bound {bound:.3g} {u} = {scale}; the error "
                   f"{same_err:.3g} {u_same} is not judged")
    return why


def failure_reasons(traj: dict, driven, side: SideRuns, j: _Judged) -> list[str]:
    """What a failed trajectory group says, quoting only what was measured (see the module docstring); empty
    when nothing failed.  Each figure in its joints' unit (``j.units``)."""
    why = []
    origin = traj.get("precision", {}).get("origin")
    incl = f", incl. {origin}" if origin else ""
    u = j.units.word()
    if driven.status != "ok":
        why.append(f"run {driven.status}")
    err, traj_tol = traj["max_abs_error_rad"], traj["tolerance_rad"]
    if not j.ok_ref and err is None:
        why.append("no error vs reference (the run produced no finite samples)")
    elif not j.ok_ref and traj_tol is not None and not j.wide_ref:
        why.append(f"max error vs reference {err:.3g} {j.units.at(traj.get('max_abs_error_per_joint_rad'))} > "
                   f"tolerance {traj_tol:.3g} {u}{incl}")
    same_err, sens = traj["same_integrator_error_rad"], traj.get("same_integrator_sensitivity_rad")
    if not j.ok_same and same_err is not None and not j.wide_same:
        why.append(f"error vs crossdyn's replica of its scheme (analytic {side.scheme}: same scheme, so model error "
                   f"alone) {same_err:.3g} {j.units.at(j.same_per_joint)} > {j.same_tol:.3g} {u}{incl}: the engine's "
                   f"model differs (above what rounding amplified by this motion leaves, its rerun from a start "
                   f"moved by {side.perturbation_rad:.2g} {u} differing by {sens:.3g} {u})")
    return why


def _per_joint(q, q_other) -> tuple[float, ...] | None:
    """max |q − q_other| per joint over the common prefix; None where the runs share no sample."""
    k = min(len(q), len(q_other))
    if not k:
        return None
    return tuple(float(v) for v in np.max(np.abs(np.asarray(q[:k], float) - np.asarray(q_other[:k], float)), axis=0))


def _within(value, limit) -> bool:
    return value is not None and limit is not None and value <= limit


def tracking_group(profile, driven) -> MetricResult | None:
    """Metric group ``tracking`` (closed loop): |q − q_d| against the controller's desired motion; reported,
    not judged (a property of the gains).  None for an open-loop profile."""
    desired = desired_motion(profile, driven.t)
    if desired is None:
        return None
    e = driven.q - desired
    return MetricResult("tracking", {
        "max_abs_error_rad": metrics.max_abs(driven.q, desired),
        "rms_error_rad": float(np.sqrt(np.mean(e**2))) if e.size else None,
        "final_abs_error_rad": float(np.max(np.abs(e[-1]))) if e.size else None,
        "max_abs_error_per_joint_rad": np.max(np.abs(e), axis=0).tolist() if e.size else None,
        "note": "|q - q_d| against the controller's desired motion: a property of the gains, "
                "reported, not judged",
    })
