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
:mod:`crossdyn.native.effort`).

**Joint limits** (applied mode): when the spec sets a compliant limit law (``limit_stiffness`` > 0), the
limit torque τ_lim(q_k, q̇_k) of :class:`crossdyn.analytic.laws.limit.LimitLaw` is computed from the engine's own
state at the start of every step and added to the (saturated) commanded torque, held over the step like it;
``Trajectory.tau`` is the sum.  Such runs take the step loop (no ``mujoco.rollout``).  ``limit_law=False``
leaves it out.

**Coulomb friction** (applied mode): an engine given an ``applied_friction`` law (attribute, a
:class:`crossdyn.analytic.laws.friction.FrictionLaw`; ``compare`` builds such engines from the spec with f_c = 0, so
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
kinematics elsewhere), computes the force F of :class:`crossdyn.analytic.laws.contact.ContactLaw` (ω = Σ q̇) and
adds τ_c = J_cᵀ F to the applied torque, held over the step like the limit torque (``Trajectory.tau`` is the
sum).  Per step (the state at its start) ``info["contact"]`` records the tip position and velocity, and per
obstacle the normal and tangential force, the penetration and its rate, and τ_c; the law and the kinematics'
source go to ``info["config"]`` (``applied_contact``, ``tip_kinematics``).  The engines' own contact stays off
(the generated models have no collision geometry).  ``contact_law=False`` leaves it out (native contact).
``contact_hold`` (s, a multiple of dt) evaluates the law only at multiples of that period and holds τ_c in
between: ``compare``'s dt/2 self-consistency run keeps the contact force held for dt, like the commanded torque,
so that it integrates the same held system and its Richardson estimate measures integration error alone.
``law_hold`` does the same for the limit and friction laws (without it, the dt/2 run of an RK4 engine on
planar2r-limits differed by 4.9e-3 rad at dt = 2 ms — the held limit law's own first-order dependence on its
hold — while its error against the reference, which holds the law for dt, was 1.8e-9 rad).

**Options and laws.**  :class:`RunOptions` (a frozen dataclass; its fields are also :func:`run_engine`'s
keywords: ``saturate``, ``limit_law``, ``contact_law``, ``contact_hold``, ``velocity_bound``, ``use_rollout``)
says how to drive; :func:`applied_laws` builds the laws above once per run from the spec (:class:`AppliedLaws`:
effort limits, limit law, friction law, contact law).

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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from crossdyn.analytic.integrators import Trajectory, n_steps
from crossdyn.engines.base import Engine
from crossdyn.inputs.profiles import Profile
from crossdyn.status import RunStatus

if TYPE_CHECKING:
    from crossdyn.analytic.laws.contact import ContactLaw
    from crossdyn.analytic.laws.limit import LimitLaw
    from crossdyn.analytic.laws.friction import FrictionLaw

DEFAULT_VELOCITY_BOUND = 1e3
"""rad/s; a joint faster than this counts as divergence (far above anything a comparison expects)."""

CHECK_BLOCK = 16
"""Open-loop runs check the state every this many steps (vectorised); the first bad state is still found
exactly, the engine merely runs a few steps past it."""

OK, DIVERGED, FAILED = RunStatus.OK.value, RunStatus.DIVERGED.value, RunStatus.FAILED.value


@dataclass(frozen=True)
class RunOptions:
    """How :func:`run_engine` drives an engine (every field also a keyword of :func:`run_engine`).

    ``velocity_bound`` (rad/s): a faster joint is divergence.  ``use_rollout``: an open-loop run may go through the
    engine's one-call ``rollout`` (False: the step loop; both bit-identical).  ``saturate``: clip the commanded
    torque to the spec's effort limits (False: native effort).  ``limit_law``, ``contact_law``: apply the spec's
    compliant limit law and tip contact law (False: native limits/contact).  ``contact_hold`` (s, a multiple of dt):
    evaluate the contact law only at multiples of it and hold τ_c in between (None: every step).  ``law_hold`` (s, a
    multiple of dt): the same for the limit and friction laws (compare's dt/2 run holds every law for dt).
    """

    velocity_bound: float = DEFAULT_VELOCITY_BOUND
    use_rollout: bool = True
    saturate: bool = True
    limit_law: bool = True
    contact_law: bool = True
    contact_hold: float | None = None
    law_hold: float | None = None


@dataclass(frozen=True)
class AppliedLaws:
    """The laws the runner applies around an engine, built once per run from its spec (:func:`applied_laws`).

    Per step k, from the engine's own state at its start and held over the step:
    τ_applied = sat(τ_cmd) + τ_lim(q_k, q̇_k) + φ(q̇_k) + J_cᵀ F(x_k, ẋ_k), sat(τ) = clip(τ, −effort, effort).
    """

    effort: np.ndarray | None = None
    """Per-joint effort limits (N m) the commanded torque is clipped to, or None (none in the spec, native mode)."""
    limit: LimitLaw | None = None
    """The compliant limit law τ_lim(q, q̇) (:class:`crossdyn.analytic.laws.limit.LimitLaw`), or None."""
    friction: FrictionLaw | None = None
    """The regularised Coulomb law φ = −f_c tanh(q̇ / v_s) given to the engine as ``applied_friction``, or None."""
    contact: ContactLaw | None = None
    """The tip contact law F(x, ẋ, ω) (:class:`crossdyn.analytic.laws.contact.ContactLaw`), or None."""
    contact_every: int = 1
    """Steps per contact hold: the contact force is evaluated every this many steps and held in between."""
    law_every: int = 1
    """Steps per limit and friction hold: their torque is evaluated every this many steps and held in between."""

    @property
    def adds_torque(self) -> bool:
        """Whether a law adds torque to the commanded one (such runs take the step loop)."""
        return self.limit is not None or self.friction is not None or self.contact is not None


def _friction(engine: Engine) -> FrictionLaw | None:
    """The regularised Coulomb law the runner applies to this engine (applied mode), or None."""
    return engine.applied_friction


def applied_laws(engine: Engine, options: RunOptions = RunOptions()) -> AppliedLaws:
    """The laws to apply to ``engine`` (its ``spec``; an engine without one gets none but its ``applied_friction``).

    Effort limits with ``saturate``; the limit law where the spec sets one (``limit_stiffness`` > 0) with
    ``limit_law``; the contact law where the spec has ``[contact]`` with ``contact_law``, its friction's v_s rule set
    for the period the force is held (``contact_hold``, default the engine's dt;
    :meth:`crossdyn.analytic.laws.contact.ContactLaw.of`).
    """
    spec = getattr(engine, "spec", None)
    if spec is None:
        return AppliedLaws(friction=_friction(engine))
    effort = spec.effort_limits() if options.saturate else None
    limit = None
    if options.limit_law and spec.has_limit_law:
        from crossdyn.analytic.laws.limit import LimitLaw

        limit = LimitLaw.of(spec)
    every = 1 if options.contact_hold is None else max(1, int(round(options.contact_hold / engine.dt)))
    contact = None
    if options.contact_law and spec.has_contact:
        from crossdyn.analytic.laws.contact import ContactLaw

        contact = ContactLaw.of(spec, dt=every * engine.dt)
    law_every = 1 if options.law_hold is None else max(1, int(round(options.law_hold / engine.dt)))
    return AppliedLaws(effort, limit, _friction(engine), contact, every, law_every)


def _run_options(options: RunOptions | None, overrides: dict[str, Any]) -> RunOptions:
    """``options`` (default :class:`RunOptions`) with the keyword ``overrides`` (unknown names: TypeError)."""
    return replace(options or RunOptions(), **overrides)


@dataclass
class _Run:
    """One run's start and arrays: states Q, QD (steps + 1 rows), torques TAU (steps rows), the times."""

    q0: np.ndarray
    qd0: np.ndarray
    Q: np.ndarray
    QD: np.ndarray
    times: np.ndarray
    TAU: np.ndarray
    per_step: bool
    """Closed loop (or a duck-typed profile without ``sample``): the profile is called every step."""


@dataclass(frozen=True)
class _Outcome:
    """How a run ended: a :class:`~crossdyn.status.RunStatus` value, the time of the first bad state, why."""

    status: str = OK
    t_bad: float | None = None
    message: str = ""


def _prepare(engine: Engine, profile: Profile, q0, qd0, duration: float, effort: np.ndarray | None) -> _Run:
    """Validate a run and allocate it; open-loop torques sampled for every step at once and saturated."""
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
    TAU = np.empty((steps, n)) if sample is None else np.ascontiguousarray(sample(times[:steps]), dtype=float)
    if TAU.shape != (steps, n):
        raise ValueError(f"profile {getattr(profile, 'name', profile)!r}: sample() gave shape {TAU.shape}, "
                         f"expected ({steps}, {n})")
    if not per_step and not np.all(np.isfinite(TAU)):
        raise ValueError(f"profile {getattr(profile, 'name', profile)!r}: non-finite torque in sample() "
                         f"at t = {times[np.nonzero(~np.isfinite(TAU))[0][0]]!r} s")
    if effort is not None and not per_step:
        TAU = np.clip(TAU, -effort, effort)
    return _Run(q0, qd0, Q, QD, times, TAU, per_step)


def _limit(engine, velocity_bound: float):
    """(the |q̇| bound a state is checked against, the engine's own velocity clamp or None)."""
    clamp = engine.velocity_clamp
    return (velocity_bound if clamp is None else min(velocity_bound, clamp * (1 - 1e-12))), clamp


def _finish_rollout(engine, profile, run: _Run, velocity_bound: float) -> Trajectory:
    """Status of a run whose states all came from one library call: cut at the first bad state."""
    Q, QD, TAU = run.Q, run.QD, run.TAU
    limit, clamp = _limit(engine, velocity_bound)
    bad = _first_bad(Q, QD, 1, len(Q), limit)
    if bad is None:
        return _result(engine, profile, Q, QD, TAU, _Outcome())
    k = bad - 1
    outcome = _classify(engine, Q, QD, k, run.times, velocity_bound, clamp)
    return _result(engine, profile, Q[: k + 1], QD[: k + 1], TAU[:k], outcome)


def _rollout_ok(TAU) -> bool:
    """MuJoCo replaces a control beyond 1e10 by zero: such torques take the step loop, which reports it."""
    return float(np.max(np.abs(TAU), initial=0.0)) < 1e10


def _library_failure(engine, profile, run: _Run, t: float, what: str, e: Exception) -> Trajectory:
    """The result of a run whose engine raised before its first step: the start state only, ``failed``."""
    return _result(engine, profile, run.Q[:1], run.QD[:1], run.TAU[:0],
                   _Outcome(FAILED, t, f"{engine.name}: {what}: {type(e).__name__}: {e}"))


def run_engine_many(engine: Engine, runs, duration: float, options: RunOptions | None = None,
                    **overrides) -> list[Trajectory]:
    """Several runs ``[(profile, q0, q̇0), …]`` of one engine (options as :func:`run_engine`'s).

    When every profile is open loop and the engine has ``rollout_many`` (MuJoCo), all runs go through
    one ``mujoco.rollout`` call, trajectories in parallel threads; the results equal :func:`run_engine`'s
    (bit-identical, tested).  Otherwise the runs are made one after the other, a run whose inputs are an earlier
    run's made once (:func:`_each_once`: a drop's zero torque and the free swing's).
    """
    opts = _run_options(options, overrides)
    laws = applied_laws(engine, opts)
    many = engine.rollout_many if opts.use_rollout and engine.capabilities.batch else None
    prepared = [_prepare(engine, profile, q0, qd0, duration, laws.effort) for profile, q0, qd0 in runs]
    if many is None or len(runs) < 2 or any(p.per_step or not _rollout_ok(p.TAU) for p in prepared) \
            or laws.adds_torque:
        return _each_once(engine, runs, prepared, duration, opts)
    try:
        Qs, QDs = many(np.array([p.q0 for p in prepared]), np.array([p.qd0 for p in prepared]),
                       np.array([p.TAU for p in prepared]))
    except Exception as e:  # noqa: BLE001 — the engine library's failure is a result (the engine's, not ours)
        return [_library_failure(engine, profile, p, float(p.times[1]), "library error in rollout", e)
                for (profile, _, _), p in zip(runs, prepared, strict=True)]
    out = []
    for b, ((profile, _, _), p) in enumerate(zip(runs, prepared, strict=True)):
        p.Q[0], p.QD[0] = p.q0, p.qd0
        p.Q[1:], p.QD[1:] = Qs[b], QDs[b]
        out.append(_finish_rollout(engine, profile, p, opts.velocity_bound))
    return out


def _each_once(engine: Engine, runs, prepared: list[_Run], duration: float, opts: RunOptions) -> list[Trajectory]:
    """:func:`run_engine` of each run, except that a run with an earlier run's inputs (open loop both, the same
    start and the same sampled, saturated torques, bit for bit, under the same options) is not made again: its
    result is a copy of that run's with its own profile's ``params`` — what running it gives, since a run from a
    reset is determined by its inputs (a ``drop`` with zero torque and the free swing from the same start: equal
    in every sample, tested)."""
    import copy

    out: list[Trajectory] = []
    for i, ((profile, q0, qd0), run) in enumerate(zip(runs, prepared, strict=True)):
        same = next((j for j in range(i) if _same_inputs(prepared[j], run)), None)
        if same is None:
            out.append(run_engine(engine, profile, q0, qd0, duration, opts))
            continue
        again = copy.deepcopy(out[same])
        params = getattr(profile, "params", None)
        again.info["profile"] = params() if params is not None else {"name": getattr(profile, "name", repr(profile))}
        out.append(again)
    return out


def same_inputs(engine: Engine, runs, duration: float) -> bool:
    """Whether the runs ``[(profile, q0, q̇0), …]`` of ``engine`` (default options) all have the first one's inputs,
    bit for bit (:func:`_same_inputs`): one run of them gives every one's states."""
    laws = applied_laws(engine, RunOptions())
    prepared = [_prepare(engine, profile, q0, qd0, duration, laws.effort) for profile, q0, qd0 in runs]
    return all(_same_inputs(prepared[0], run) for run in prepared[1:])


def _same_inputs(a: _Run, b: _Run) -> bool:
    """Two open-loop runs with the same start and torques, bit for bit (−0.0 is not 0.0)."""
    return (not a.per_step and not b.per_step and a.TAU.tobytes() == b.TAU.tobytes()
            and a.q0.tobytes() == b.q0.tobytes() and a.qd0.tobytes() == b.qd0.tobytes())


def run_engine(engine: Engine, profile: Profile, q0, qd0, duration: float, options: RunOptions | None = None,
               **overrides) -> Trajectory:
    """Drive ``engine`` with ``profile`` from (q0, q̇0) for ``duration`` seconds (see the module docstring).

    ``options`` (:class:`RunOptions`) and keyword ``overrides`` of its fields (``limit_law=False``, ``saturate=False``,
    ``contact_hold=dt``, …) say how.  An open-loop profile on an engine with a ``rollout(tau)`` method (MuJoCo) is
    run in one library call (``use_rollout=False`` forces the step loop; both give bit-identical states).
    """
    opts = _run_options(options, overrides)
    laws = applied_laws(engine, opts)
    run = _prepare(engine, profile, q0, qd0, duration, laws.effort)
    try:
        engine.reset(run.q0, run.qd0)
        _read_state(engine, run.Q[0], run.QD[0])
    except Exception as e:  # noqa: BLE001 — a library failure is a result, not a crash
        return _library_failure(engine, profile, run, 0.0, "reset failed", e)
    one_call = engine.capabilities.rollout and opts.use_rollout and not (run.per_step or laws.adds_torque)
    rollout = engine.rollout if one_call else None
    if rollout is not None and _rollout_ok(run.TAU):
        # one library call for the whole open-loop profile (MuJoCo: mujoco.rollout; identical to stepping)
        try:
            run.Q[1:], run.QD[1:] = rollout(run.TAU)
        except Exception as e:  # noqa: BLE001 — the engine library's failure is a result
            return _library_failure(engine, profile, run, float(run.times[1]), "library error in rollout", e)
        return _finish_rollout(engine, profile, run, opts.velocity_bound)
    return _StepLoop(engine, profile, run, laws, opts.velocity_bound).drive()


def _read_state(engine: Engine, q: np.ndarray, qd: np.ndarray) -> None:
    """The engine's state into the rows ``q``, ``qd`` (:meth:`Engine.read_state_into`: no copies where the adapter
    has its own, else from ``state()``)."""
    engine.read_state_into(q, qd)


CONTACT_FIELDS = ("tip", "tip_velocity", "normal_force", "tangential_force", "penetration", "penetration_rate",
                  "torque")
"""What ``info["contact"]`` records per step (the state at its start): tip position and velocity (2 each), per
obstacle the normal and tangential force, the penetration and its rate, and τ_c (n)."""


@dataclass
class _LawTorques:
    """The limit, friction and contact torques of a run, kept apart from the commanded ones (``LIM``, one row per
    step), and the contact record (``CON``, :data:`CONTACT_FIELDS`)."""

    laws: AppliedLaws
    LIM: np.ndarray
    CON: dict[str, np.ndarray] = field(default_factory=dict)
    rows: list[list[np.ndarray]] = field(default_factory=list)

    @classmethod
    def allocate(cls, laws: AppliedLaws, steps: int, n: int) -> _LawTorques:
        out = cls(laws, np.zeros((steps, n)))
        if laws.contact is not None:
            m = len(laws.contact.points)
            widths = (2, 2, m, m, m, m, n)
            out.CON = {key: np.empty((steps, w)) for key, w in zip(CONTACT_FIELDS, widths, strict=True)}
            out.rows = [list(out.CON[key]) for key in CONTACT_FIELDS]  # row views, made once
        return out

    def step(self, k: int, q: np.ndarray, qd: np.ndarray) -> bool:
        """LIM[k] from the engine's state (q, q̇) at the start of step k: the limit and friction torques, and inside a
        contact hold period the contact torque of its start.  True when the contact force is due now
        (:meth:`contact_step`, with the engine's tip kinematics)."""
        laws, LIM = self.laws, self.LIM
        if k % laws.law_every and (laws.limit is not None or laws.friction is not None):
            LIM[k] = LIM[k - 1] - (self.CON["torque"][k - 1] if self.CON else 0.0)  # inside a law_hold period
        else:
            if laws.limit is not None:  # the limit torque from the engine's own state, held over the step
                LIM[k] = laws.limit.torque(q, qd)
            if laws.friction is not None:  # the regularised Coulomb torque from the engine's own state
                LIM[k] += laws.friction.torque(qd)
        if laws.contact is None:
            return False
        if k % laws.contact_every:  # inside a contact_hold period: the force of its start
            for a in self.CON.values():
                a[k] = a[k - 1]
            LIM[k] += self.CON["torque"][k]
            return False
        return True

    def contact_step(self, k: int, qd: np.ndarray, kinematics) -> None:
        """The contact force from the engine's own tip kinematics (x, ẋ, J) at the start of step k, recorded, and
        τ_c = J_cᵀ F added to LIM[k]."""
        contact = self.laws.contact
        assert contact is not None
        x, v, J = kinematics
        _, fn, ft, delta, ddot = contact.force(x, v, float(qd.sum()))
        tc = contact.torque_from_force(J, fn, ft)
        for rows, value in zip(self.rows, (x, v, fn, ft, delta, ddot, tc), strict=True):
            rows[k][:] = value
        self.LIM[k] += tc


class _StepLoop:
    """The step loop: for k = 0 … K−1, τ_k (profile, saturated, plus the laws' torque), ``engine.step``, read."""

    def __init__(self, engine: Engine, profile: Profile, run: _Run, laws: AppliedLaws, velocity_bound: float):
        self.engine, self.profile, self.run, self.laws = engine, profile, run, laws
        self.velocity_bound = velocity_bound
        steps, n = run.TAU.shape
        self.extra = _LawTorques.allocate(laws, steps, n) if laws.adds_torque else None
        # laws' torque past the actuators (MuJoCo qfrc_applied, Drake's applied generalized force port)
        self.split = engine.step_applied if self.extra is not None and engine.capabilities.step_applied else None
        self.effort = laws.effort if run.per_step else None  # open loop: saturated in _prepare
        # states are checked in blocks of CHECK_BLOCK steps (one vectorised check instead of a few µs per step);
        # closed-loop profiles see every state, so there every state is checked before the profile uses it
        self.block = 1 if run.per_step or self.extra is not None else CHECK_BLOCK
        self.step, self.read = engine.step, engine.read_state_into  # bound once

    def _command(self, k: int, tau: np.ndarray, q: np.ndarray, qd: np.ndarray) -> _Outcome | None:
        """τ_k of a closed-loop profile into ``tau`` (saturated), or the outcome of a non-finite one."""
        t = self.run.times[k]
        tau[:] = self.profile(t, q, qd)
        if not math.isfinite(tau.sum()):
            return _Outcome(FAILED, float(t), f"profile {getattr(self.profile, 'name', '?')!r} gave a non-finite "
                            f"torque {tau.tolist()} at t = {float(t):.6g} s")
        if self.effort is not None:
            np.clip(tau, -self.effort, self.effort, out=tau)  # saturate the commanded torque before it is applied
        return None

    def _apply(self, k: int, tau: np.ndarray) -> None:
        """Step the engine with τ_k (+ the laws' torque LIM[k]) and read the state into row k + 1."""
        extra, q, qd = self.extra, self.run.Q[k + 1], self.run.QD[k + 1]
        if extra is None:
            self.step(tau)
        else:
            command = tau.copy() if self.split is not None else tau
            tau += extra.LIM[k]
            if self.split is not None:
                self.split(command, extra.LIM[k])
            else:
                self.step(tau)
        self.read(q, qd)

    def drive(self) -> Trajectory:
        run, engine = self.run, self.engine
        Q, QD, times = run.Q, run.QD, run.times
        steps = len(run.TAU)
        limit, clamp = _limit(engine, self.velocity_bound)
        q_rows, qd_rows, tau_rows = list(Q), list(QD), list(run.TAU)  # row views made once
        outcome, k, good = _Outcome(), steps, 0  # rows 0 … good are checked and fine
        for k in range(steps):
            tau, q, qd = tau_rows[k], q_rows[k], qd_rows[k]
            if run.per_step:
                failure = self._command(k, tau, q, qd)
                if failure is not None:
                    outcome = failure
                    break
            if self.extra is not None and self.extra.step(k, q, qd):
                try:
                    kinematics = engine.tip_kinematics()
                except Exception as e:  # noqa: BLE001 — the engine's tip kinematics failed: a result
                    t_bad = float(times[k])
                    outcome = _Outcome(FAILED, t_bad, f"{engine.name}: tip kinematics failed at t = {t_bad:.6g} s: "
                                       f"{type(e).__name__}: {e}")
                    break
                self.extra.contact_step(k, qd, kinematics)
            try:
                self._apply(k, tau)
            except Exception as e:  # noqa: BLE001 — the engine library's failure is a result
                bad = _first_bad(Q, QD, good + 1, k + 1, limit)
                if bad is None:
                    t_bad = float(times[k + 1])
                    outcome = _Outcome(FAILED, t_bad, f"{engine.name}: library error at t = {t_bad:.6g} s: "
                                       f"{type(e).__name__}: {e}")
                    break
                k = bad - 1  # report the earlier divergence (the library error came after it)
            else:
                if k + 1 - good < self.block and k + 1 < steps:
                    continue
                bad = _first_bad(Q, QD, good + 1, k + 2, limit)
                if bad is None:
                    good = k + 1
                    continue
                k = bad - 1
            # row k + 1 is the first bad state
            outcome = _classify(engine, Q, QD, k, times, self.velocity_bound, clamp)
            break
        return self._finish(outcome, k)

    def _finish(self, outcome: _Outcome, k: int) -> Trajectory:
        Q, QD, TAU = self.run.Q, self.run.QD, self.run.TAU
        if outcome.status != OK:
            Q, QD, TAU = Q[: k + 1], QD[: k + 1], TAU[:k]
        extra = self.extra
        out = _result(self.engine, self.profile, Q, QD, TAU, outcome, None if extra is None else extra.LIM)
        contact = self.laws.contact
        if extra is not None and contact is not None:
            out.info["contact"] = {key: a[: len(TAU)] for key, a in extra.CON.items()}
            out.info["config"] = {**out.info["config"], "applied_contact": contact.describe(),
                                  "tip_kinematics": self.engine.tip_source}
        return out


def _classify(engine, Q, QD, k: int, times, velocity_bound: float, clamp) -> _Outcome:
    """Status, time and message for the first bad state, row k + 1."""
    t_bad = float(times[k + 1])
    vmax = float(np.max(np.abs(QD[k + 1])))
    if not (math.isfinite(vmax) and np.all(np.isfinite(Q[k + 1]))):
        return _Outcome(DIVERGED, t_bad, f"state became non-finite at t = {t_bad:.6g} s")
    if vmax > velocity_bound:
        return _Outcome(DIVERGED, t_bad, f"|qd| = {vmax:.6g} rad/s exceeded the bound {velocity_bound:g} rad/s "
                                         f"at t = {t_bad:.6g} s")
    return _Outcome(FAILED, t_bad, f"{engine.name}: joint velocity reached the engine's clamp {clamp:g} rad/s at "
                                   f"t = {t_bad:.6g} s (the engine limits speed there; raise it, e.g. "
                                   "max_joint_velocity)")


def _first_bad(Q, QD, lo: int, hi: int, limit: float) -> int | None:
    """Index of the first row in [lo, hi) with a non-finite q or |q̇| > limit (NaN counts), else None."""
    if hi <= lo:
        return None
    if hi - lo == 1:  # one row (a run checked at every step): plain floats, no array temporaries; the same test
        if all(-limit <= v <= limit for v in QD[lo].tolist()) and all(math.isfinite(x) for x in Q[lo].tolist()):
            return None
        return lo
    ok = np.all(np.abs(QD[lo:hi]) <= limit, axis=1) & np.all(np.isfinite(Q[lo:hi]), axis=1)
    if ok.all():
        return None
    return lo + int(np.argmin(ok))


def _result(engine, profile, Q, QD, TAU, outcome: _Outcome, limit_tau=None) -> Trajectory:
    """The :class:`Trajectory` of a run, with ``info``: the engine, its ``config()`` (and the applied friction law),
    the profile's ``params()``, the laws' torque ``limit_tau`` per step (``law_torque``: limit + friction + contact,
    held over the step; absent when no law applied), and with effort limits the saturated steps per joint (applied
    torque at the limit, the laws' torque left out: they are not an actuator's)."""
    try:
        config = engine.config()
    except Exception as e:  # noqa: BLE001 — the engine's own description failed: recorded, the run stands
        config = {"error": f"config() failed: {type(e).__name__}: {e}"}
    fric = _friction(engine)
    if fric is not None:
        config = {**config, "applied_friction": fric.describe()}
    params = getattr(profile, "params", None)
    info = {"engine": engine.name, "config": config,
            "profile": params() if params is not None else {"name": getattr(profile, "name", repr(profile))}}
    if limit_tau is not None:  # the laws' torque (limit + friction + contact) apart: tau − law_torque is commanded
        info["law_torque"] = limit_tau[: len(TAU)]
    spec = getattr(engine, "spec", None)
    limit = spec.effort_limits() if spec is not None else None
    if spec is not None and limit is not None:  # steps whose applied torque sits at the limit (applied mode)
        commanded = TAU if limit_tau is None else TAU - limit_tau[: len(TAU)]
        at = np.abs(commanded) >= limit * (1 - 1e-12)
        info["effort"] = {"limit_nm": [link.effort for link in spec.links],
                          "saturated_steps": at.sum(axis=0).tolist()}
    dt = engine.dt
    t = np.arange(Q.shape[0]) * dt
    return Trajectory(t, Q, QD, TAU, engine.integrator, dt, outcome.status, outcome.t_bad, outcome.message, info)
