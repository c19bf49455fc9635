"""The one code path every engine is driven through: :func:`run_engine`.

Reset the engine to (q0, q̇0), then for k = 0 … K−1: τ_k = profile(t_k, q_k, q̇_k) sampled from the
engine's own state at t_k = k·dt (zero-order hold: τ_k is held over the whole step), ``engine.step(τ_k)``,
read the state.  Open-loop profiles are sampled for all steps at once (:meth:`Profile.sample`, equal to
per-step calls); closed-loop profiles (and any callable ``profile(t, q, qd)`` without ``sample``) are
called every step.  On MuJoCo an open-loop profile goes through ``mujoco.rollout`` in one call, and
:func:`run_engine_many` puts several open-loop runs of one model into one call on parallel threads; both are
bit-identical to the step loop (tests/test_fast_paths.py).

**Effort limits** (applied mode): when the arm's spec has ``effort`` limits, every torque is saturated to
[−effort, effort] here, before the engine gets it, for every engine alike (``Trajectory.tau`` is the applied
torque; ``info["effort"]`` counts the saturated steps per joint).  ``saturate=False`` hands the commanded
torque to the engine unchanged (native mode: the engine's own limit, if it has one;
:mod:`crossdyn.drive.effort`).

**Joint limits** (applied mode): when the spec sets a compliant limit law (``limit_stiffness`` > 0), the
limit torque τ_lim(q_k, q̇_k) of :class:`crossdyn.analytic.limits.LimitLaw` is computed from the engine's own
state at the start of every step and added to the (saturated) commanded torque, held over the step like it;
``Trajectory.tau`` is the sum.  Such runs take the step loop (no ``mujoco.rollout``).  ``limit_law=False``
leaves it out.

**Coulomb friction** (applied mode): an engine given an ``applied_friction`` law (attribute, a
:class:`crossdyn.analytic.stick_slip.FrictionLaw`; ``compare`` builds such engines from the spec with f_c = 0, so
their native friction is off) gets φ = −f_c tanh(q̇_k / v_s) from its own state at the start of every step, held
over the step and added like the limit torque (``Trajectory.tau`` is the sum); the law is stated in
``info["config"]["applied_friction"]``.  Such runs take the step loop.

The limit, friction and contact torques are not an actuator's: an engine whose actuators clamp to the effort limit
natively (MuJoCo's motor ``forcerange``, Drake's actuator ``effort_limit``) has ``step_applied(τ, τ_extra)``,
which gives the actuators the (saturated) commanded torque and applies τ_extra around them (MuJoCo
``qfrc_applied``, Drake's applied generalized force port); given the sum, it would clamp the laws' torque too.

**Contact** (applied mode): when the spec has a ``[contact]`` sphere and obstacles, every step the runner asks the
engine for its own tip kinematics at its current state (:meth:`~crossdyn.engines.base.Engine.tip_kinematics`: x,
ẋ, J from MuJoCo's site, PyBullet's link, Pinocchio's frame, Drake's frame, DART's body node; crossdyn's analytic
kinematics elsewhere), computes the force F of :class:`crossdyn.analytic.contact.ContactLaw` (ω = Σ q̇) and
adds τ_c = J_cᵀ F to the applied torque, held over the step like the limit torque (``Trajectory.tau`` is the
sum).  Per step (the state at its start) ``info["contact"]`` records the tip position and velocity, and per
obstacle the normal and tangential force, the penetration and its rate, and τ_c; the law and the kinematics'
source go to ``info["config"]`` (``applied_contact``, ``tip_kinematics``).  The engines' own contact stays off
(the generated models have no collision geometry).  ``contact_law=False`` leaves it out (native contact).
``contact_hold`` (s, a multiple of dt) evaluates the law only at multiples of that period and holds τ_c in
between: ``compare``'s dt/2 self-consistency run keeps the contact force held for dt, like the commanded torque,
so that it integrates the same held system and its Richardson estimate measures integration error alone.

A run never raises for a physical failure; it returns a :class:`~crossdyn.analytic.integrators.Trajectory`
with ``status``:

* ``"ok"``;
* ``"diverged"`` — the state became non-finite or some |q̇| exceeded ``velocity_bound`` rad/s;
* ``"failed"`` — the engine library raised an exception, or the engine's own joint-velocity clamp was
  reached (PyBullet's ``maxJointVelocity``: the state is no longer the unclamped dynamics).

For both, ``diverged_at`` is the time of the first bad state, the arrays stop at the last good state and
``message`` says why.  ``info`` records the engine name, its ``config()`` and the profile's ``params()``.
"""
from __future__ import annotations

import math

import numpy as np

from crossdyn.analytic.integrators import Trajectory, n_steps
from crossdyn.drive.profiles import Profile
from crossdyn.engines.base import Engine

DEFAULT_VELOCITY_BOUND = 1e3
"""rad/s; a joint faster than this counts as divergence (far above anything a comparison expects)."""

CHECK_BLOCK = 16
"""Open-loop runs check the state every this many steps (vectorised); the first bad state is still found
exactly, the engine merely runs a few steps past it."""


def _effort(engine: Engine, saturate: bool):
    """The per-joint effort limits (N m) to saturate to, or None (none in the spec, or native mode)."""
    spec = getattr(engine, "spec", None)
    return spec.effort_limits() if saturate and spec is not None else None


def _prepare(engine: Engine, profile: Profile, q0, qd0, duration: float, saturate: bool = True):
    """Validate a run and allocate it: (q0, q̇0, Q, QD, times, TAU, per_step); open-loop torques saturated."""
    n, dt = engine.n, engine.dt
    steps = n_steps(duration, dt)
    validate = getattr(profile, "validate", None)
    if validate is not None:
        validate(n, duration)
    q0 = np.array(q0, dtype=float).reshape(n)
    qd0 = np.array(qd0, dtype=float).reshape(n)
    Q = np.empty((steps + 1, n))
    QD = np.empty((steps + 1, n))
    times = np.arange(steps + 1) * dt
    sample = None if getattr(profile, "closed_loop", True) else getattr(profile, "sample", None)
    per_step = sample is None  # closed loop, or a duck-typed profile without sample(): call it every step
    TAU = np.empty((steps, n)) if per_step else np.ascontiguousarray(sample(times[:steps]), dtype=float)
    if TAU.shape != (steps, n):
        raise ValueError(f"profile {getattr(profile, 'name', profile)!r}: sample() gave shape {TAU.shape}, "
                         f"expected ({steps}, {n})")
    if not per_step and not np.all(np.isfinite(TAU)):
        raise ValueError(f"profile {getattr(profile, 'name', profile)!r}: non-finite torque in sample() "
                         f"at t = {times[np.nonzero(~np.isfinite(TAU))[0][0]]!r} s")
    limit = _effort(engine, saturate)
    if limit is not None and not per_step:
        TAU = np.clip(TAU, -limit, limit)
    return q0, qd0, Q, QD, times, TAU, per_step


def _limit(engine, velocity_bound: float):
    clamp = engine.velocity_clamp
    return (velocity_bound if clamp is None else min(velocity_bound, clamp * (1 - 1e-12))), clamp


def _finish_rollout(engine, profile, Q, QD, TAU, times, velocity_bound: float) -> Trajectory:
    """Status of a run whose states all came from one library call: cut at the first bad state."""
    limit, clamp = _limit(engine, velocity_bound)
    bad = _first_bad(Q, QD, 1, len(Q), limit)
    if bad is None:
        return _result(engine, profile, Q, QD, TAU, engine.dt, "ok", None, "")
    k = bad - 1
    status, t_bad, msg = _classify(engine, Q, QD, k, times, velocity_bound, clamp)
    return _result(engine, profile, Q[: k + 1], QD[: k + 1], TAU[:k], engine.dt, status, t_bad, msg)


def _rollout_ok(TAU) -> bool:
    """MuJoCo replaces a control beyond 1e10 by zero: such torques take the step loop, which reports it."""
    return float(np.max(np.abs(TAU), initial=0.0)) < 1e10


def _law(engine: Engine, limit_law: bool):
    """The compliant limit law to apply (applied mode), or None."""
    spec = getattr(engine, "spec", None)
    if not limit_law or spec is None or not spec.has_limit_law:
        return None
    from crossdyn.analytic.limits import LimitLaw

    return LimitLaw.of(spec)


def _friction(engine: Engine):
    """The regularised Coulomb law the runner applies to this engine (applied mode), or None."""
    return engine.applied_friction


def _contact(engine: Engine, contact_law: bool, hold: float | None = None):
    """The tip contact law to apply (applied mode), or None; its friction's v_s rule is set for the period the
    force is held (``hold``, default the engine's dt; :meth:`crossdyn.analytic.contact.ContactLaw.of`)."""
    spec = getattr(engine, "spec", None)
    if not contact_law or spec is None or not spec.has_contact:
        return None
    from crossdyn.analytic.contact import ContactLaw

    return ContactLaw.of(spec, dt=engine.dt if hold is None else hold)


def run_engine_many(engine: Engine, runs, duration: float, velocity_bound: float = DEFAULT_VELOCITY_BOUND,
                    use_rollout: bool = True, saturate: bool = True, limit_law: bool = True,
                    contact_law: bool = True) -> list[Trajectory]:
    """Several runs ``[(profile, q0, q̇0), …]`` of one engine.

    When every profile is open loop and the engine has ``rollout_many`` (MuJoCo), all runs go through
    one ``mujoco.rollout`` call, trajectories in parallel threads; the results equal :func:`run_engine`'s
    (bit-identical, tested).  Otherwise the runs are made one after the other.
    """
    many = engine.rollout_many if use_rollout and engine.capabilities.batch else None
    prepared = [_prepare(engine, profile, q0, qd0, duration, saturate) for profile, q0, qd0 in runs]
    if many is None or len(runs) < 2 or any(p[6] or not _rollout_ok(p[5]) for p in prepared) \
            or _law(engine, limit_law) is not None or _friction(engine) is not None \
            or _contact(engine, contact_law) is not None:
        return [run_engine(engine, profile, q0, qd0, duration, velocity_bound, use_rollout, saturate, limit_law,
                           contact_law) for profile, q0, qd0 in runs]
    try:
        Qs, QDs = many(np.array([p[0] for p in prepared]), np.array([p[1] for p in prepared]),
                       np.array([p[5] for p in prepared]))
    except Exception as e:  # noqa: BLE001
        return [_result(engine, profile, p[2][:1], p[3][:1], p[5][:0], engine.dt, "failed", float(p[4][1]),
                        f"{engine.name}: library error in rollout: {type(e).__name__}: {e}")
                for (profile, _, _), p in zip(runs, prepared)]
    out = []
    for b, ((profile, _, _), (q0, qd0, Q, QD, times, TAU, _)) in enumerate(zip(runs, prepared)):
        Q[0], QD[0] = q0, qd0
        Q[1:], QD[1:] = Qs[b], QDs[b]
        out.append(_finish_rollout(engine, profile, Q, QD, TAU, times, velocity_bound))
    return out


def run_engine(engine: Engine, profile: Profile, q0, qd0, duration: float,
               velocity_bound: float = DEFAULT_VELOCITY_BOUND, use_rollout: bool = True,
               saturate: bool = True, limit_law: bool = True, contact_law: bool = True,
               contact_hold: float | None = None) -> Trajectory:
    """Drive ``engine`` with ``profile`` from (q0, q̇0) for ``duration`` seconds (see the module docstring).

    An open-loop profile on an engine with a ``rollout(tau)`` method (MuJoCo) is run in one library
    call (``use_rollout=False`` forces the step loop; both give bit-identical states).
    """
    q0, qd0, Q, QD, times, TAU, per_step = _prepare(engine, profile, q0, qd0, duration, saturate)
    n, dt, steps = engine.n, engine.dt, len(TAU)
    effort = _effort(engine, saturate) if per_step else None  # open loop: saturated in _prepare
    law = _law(engine, limit_law)
    fric = _friction(engine)
    every = 1 if contact_hold is None else max(1, int(round(contact_hold / dt)))  # steps per contact hold
    contact = _contact(engine, contact_law, every * dt)
    # limit, friction and contact torques, kept apart from the commanded ones
    LIM = np.zeros_like(TAU) if law is not None or fric is not None or contact is not None else None
    if contact is not None:  # per step: tip position, velocity (2 each); per obstacle F_n, F_t, δ, δ̇; τ_c
        m = len(contact.points)
        CON = {"tip": np.empty((steps, 2)), "tip_velocity": np.empty((steps, 2)), "normal_force": np.empty((steps, m)),
               "tangential_force": np.empty((steps, m)), "penetration": np.empty((steps, m)),
               "penetration_rate": np.empty((steps, m)), "torque": np.empty((steps, n))}
        tip_kinematics = engine.tip_kinematics
        con_rows = [list(CON[key]) for key in ("tip", "tip_velocity", "normal_force", "tangential_force",
                                                "penetration", "penetration_rate", "torque")]  # row views, once
    split = engine.step_applied if LIM is not None and engine.capabilities.step_applied else None  # past the actuators
    read = engine.read_state_into
    limit, clamp = _limit(engine, velocity_bound)

    status, t_bad, msg = "ok", None, ""
    k = steps
    try:
        engine.reset(q0, qd0)
        if read is not None:
            read(Q[0], QD[0])
        else:
            Q[0], QD[0] = engine.state()
    except Exception as e:  # noqa: BLE001 — a library failure is a result, not a crash
        return _result(engine, profile, Q[:1], QD[:1], TAU[:0], dt, "failed", 0.0,
                       f"{engine.name}: reset failed: {type(e).__name__}: {e}")
    rollout = engine.rollout if engine.capabilities.rollout and use_rollout and not per_step and LIM is None else None
    if rollout is not None and _rollout_ok(TAU):
        # one library call for the whole open-loop profile (MuJoCo: mujoco.rollout; identical to stepping)
        try:
            Q[1:], QD[1:] = rollout(TAU)
        except Exception as e:  # noqa: BLE001
            return _result(engine, profile, Q[:1], QD[:1], TAU[:0], dt, "failed", float(times[1]),
                           f"{engine.name}: library error in rollout: {type(e).__name__}: {e}")
        return _finish_rollout(engine, profile, Q, QD, TAU, times, velocity_bound)
    step = engine.step
    isfinite = math.isfinite
    # row views made once (indexing a 2-D array builds a view each time)
    q_rows, qd_rows, tau_rows = list(Q), list(QD), list(TAU)
    # states are checked in blocks of CHECK_BLOCK steps (one vectorised check instead of a few µs per step);
    # closed-loop profiles see every state, so there every state is checked before the profile uses it
    block = 1 if per_step or LIM is not None else CHECK_BLOCK
    good = 0  # rows 0 … good are checked and fine
    for k in range(steps):
        tau = tau_rows[k]
        if per_step:
            tau[:] = profile(times[k], q_rows[k], qd_rows[k])
            if not isfinite(tau.sum()):
                status, t_bad = "failed", float(times[k])
                msg = (f"profile {getattr(profile, 'name', '?')!r} gave a non-finite torque {tau.tolist()} "
                       f"at t = {t_bad:.6g} s")
                break
            if effort is not None:
                np.clip(tau, -effort, effort, out=tau)  # saturate the commanded torque before it is applied
        if law is not None:  # the limit torque from the engine's own state, held over the step
            LIM[k] = law.torque(q_rows[k], qd_rows[k])
        if fric is not None:  # the regularised Coulomb torque from the engine's own state, held over the step
            LIM[k] += fric.torque(qd_rows[k])
        if contact is not None and k % every:  # inside a contact_hold period: the force of its start
            for a in CON.values():
                a[k] = a[k - 1]
            LIM[k] += CON["torque"][k]
        elif contact is not None:  # the contact force from the engine's own tip kinematics, held over the step
            try:
                x, v, J = tip_kinematics()
            except Exception as e:  # noqa: BLE001
                status, t_bad = "failed", float(times[k])
                msg = f"{engine.name}: tip kinematics failed at t = {t_bad:.6g} s: {type(e).__name__}: {e}"
                break
            _, fn, ft, delta, ddot = contact.force(x, v, float(qd_rows[k].sum()))
            tc = contact.torque_from_force(J, fn, ft)
            for rows, value in zip(con_rows, (x, v, fn, ft, delta, ddot, tc)):
                rows[k][:] = value
            LIM[k] += tc
        if split is not None:
            command = tau.copy()
        if LIM is not None:
            tau += LIM[k]
        q, qd = q_rows[k + 1], qd_rows[k + 1]
        try:
            if split is not None:
                split(command, LIM[k])
            else:
                step(tau)
            if read is not None:
                read(q, qd)
            else:
                q[:], qd[:] = engine.state()
        except Exception as e:  # noqa: BLE001
            bad = _first_bad(Q, QD, good + 1, k + 1, limit)
            if bad is None:
                status, t_bad = "failed", float(times[k + 1])
                msg = f"{engine.name}: library error at t = {t_bad:.6g} s: {type(e).__name__}: {e}"
                break
            k = bad - 1  # report the earlier divergence (the library error came after it)
        else:
            if k + 1 - good < block and k + 1 < steps:
                continue
            bad = _first_bad(Q, QD, good + 1, k + 2, limit)
            if bad is None:
                good = k + 1
                continue
            k = bad - 1
        # row k + 1 is the first bad state
        status, t_bad, msg = _classify(engine, Q, QD, k, times, velocity_bound, clamp)
        break
    if status != "ok":
        Q, QD, TAU = Q[: k + 1], QD[: k + 1], TAU[:k]
    out = _result(engine, profile, Q, QD, TAU, dt, status, t_bad, msg, LIM)
    if contact is not None:
        out.info["contact"] = {key: a[: len(TAU)] for key, a in CON.items()}
        out.info["config"] = {**out.info["config"], "applied_contact": contact.describe(),
                              "tip_kinematics": engine.tip_source}
    return out


def _classify(engine, Q, QD, k: int, times, velocity_bound: float, clamp) -> tuple[str, float, str]:
    """Status, time and message for the first bad state, row k + 1."""
    t_bad = float(times[k + 1])
    vmax = float(np.max(np.abs(QD[k + 1])))
    if not (math.isfinite(vmax) and np.all(np.isfinite(Q[k + 1]))):
        return "diverged", t_bad, f"state became non-finite at t = {t_bad:.6g} s"
    if vmax > velocity_bound:
        return "diverged", t_bad, (f"|qd| = {vmax:.6g} rad/s exceeded the bound {velocity_bound:g} rad/s "
                                   f"at t = {t_bad:.6g} s")
    return "failed", t_bad, (f"{engine.name}: joint velocity reached the engine's clamp {clamp:g} rad/s at "
                             f"t = {t_bad:.6g} s (the engine limits speed there; raise it, e.g. max_joint_velocity)")


def _first_bad(Q, QD, lo: int, hi: int, limit: float) -> int | None:
    """Index of the first row in [lo, hi) with a non-finite q or |q̇| > limit (NaN counts), else None."""
    if hi <= lo:
        return None
    ok = np.all(np.abs(QD[lo:hi]) <= limit, axis=1) & np.all(np.isfinite(Q[lo:hi]), axis=1)
    if ok.all():
        return None
    return lo + int(np.argmin(ok))


def _result(engine, profile, Q, QD, TAU, dt, status, t_bad, msg, limit_tau=None) -> Trajectory:
    try:
        config = engine.config()
    except Exception as e:  # noqa: BLE001
        config = {"error": f"config() failed: {type(e).__name__}: {e}"}
    fric = _friction(engine)
    if fric is not None:
        config = {**config, "applied_friction": fric.describe()}
    params = getattr(profile, "params", None)
    info = {"engine": engine.name, "config": config,
            "profile": params() if params is not None else {"name": getattr(profile, "name", repr(profile))}}
    spec = getattr(engine, "spec", None)
    limit = spec.effort_limits() if spec is not None else None
    if limit is not None:  # steps whose applied torque sits at the limit (saturated, in applied mode)
        # the limit and friction laws are not an actuator
        commanded = TAU if limit_tau is None else TAU - limit_tau[: len(TAU)]
        at = np.abs(commanded) >= limit * (1 - 1e-12)
        info["effort"] = {"limit_nm": [l.effort for l in spec.links], "saturated_steps": at.sum(axis=0).tolist()}
    t = np.arange(Q.shape[0]) * dt
    return Trajectory(t, Q, QD, TAU, engine.integrator, dt, status, t_bad, msg, info)
