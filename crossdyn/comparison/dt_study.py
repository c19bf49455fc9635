"""The replica runs behind the default step's choice on a planar arm (:mod:`crossdyn.comparison.dt_choice`).

For each scheme the compared engines step with that crossdyn can replicate (:data:`REPLICA_SCHEMES`, read from the
engine registry's ``integrator``: no engine is built), crossdyn's analytic model with that scheme runs the
comparison's profile from its start at dt, and at dt/2 with the torque, the contact and limit laws held for dt
(the engines' own dt/2 reruns, :func:`crossdyn.comparison.groups.trajectory.side_runs`).  A few thousand steps in
plain floats: well under a second, where rerunning every engine would cost the comparison again.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from crossdyn.comparison import dt_choice
from crossdyn.comparison.containment import build_engine
from crossdyn.comparison.groups.trajectory import ORDER, REPLICA_SCHEMES, SAME_SCHEME_ENGINE
from crossdyn.comparison.start import held


def engine_schemes(engines: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The replicable schemes the named engines step with (registry ``integrator``; ``user:`` engines and names
    the registry does not know are left out), each once, in order."""
    from crossdyn.engines.registry import USER_PREFIX, entry

    out: list[str] = []
    for name in engines:
        if name.startswith(USER_PREFIX):
            continue
        try:
            scheme = entry(name.split("@", 1)[0]).integrator
        except Exception:  # noqa: BLE001 — an unknown name is refused elsewhere, with its message
            continue
        if scheme in REPLICA_SCHEMES and scheme not in out:
            out.append(scheme)
    return tuple(out)


def joint_range(q) -> float:
    """The largest joint range over a run's finite samples (rad), as the judging's bound reads the reference."""
    q = np.asarray(q, float)
    q = q[np.all(np.isfinite(q), axis=1)] if q.ndim == 2 else q
    return float(np.max(np.ptp(q, axis=0))) if len(q) else 0.0


def planar_study(scheme: str, spec, profile, q0, qd0, dt: float, duration: float,
                 friction: Any = None) -> dt_choice.SchemeStudy:
    """:class:`~crossdyn.comparison.dt_choice.SchemeStudy` of ``scheme`` on the planar arm (module docstring)."""
    from crossdyn.drive.runner import run_engine

    name = SAME_SCHEME_ENGINE[scheme]
    engine, half_engine = build_engine(name, spec, dt, friction), build_engine(name, spec, dt / 2, friction)
    full = run_engine(engine, profile, q0, qd0, duration)
    half = run_engine(half_engine, held(profile, dt), q0, qd0, duration, contact_hold=dt, law_hold=dt)
    order = ORDER.get(scheme, 1)
    if full.status != "ok" or half.status != "ok":
        return dt_choice.SchemeStudy(scheme, order, None, joint_range(full.q))
    balance = balance_change(spec, (engine, full), (half_engine, half), dt)
    return study_of(scheme, order, full.q, half.q[::2], duration, lambda q: reached_phenomena(spec, q), balance)


def balance_change(spec, run, half_run, dt: float) -> np.ndarray:
    """|r(dt) − r(dt/2)| / E_scale at each dt sample, r the work–energy residual of the ``energy`` group
    (:func:`crossdyn.comparison.groups.energy.energy_group`) of the replica's run at dt and at dt/2."""
    from crossdyn.comparison import metrics

    b = np.array([link.damping for link in spec.links])
    fc = np.array([link.friction for link in spec.links])
    (engine, full), (half_engine, half) = run, half_run
    r = metrics.work_energy_residual(full.q, full.qd, full.tau, engine.energies(full.q, full.qd), dt, b, fc)
    rh = metrics.work_energy_residual(half.q, half.qd, half.tau, half_engine.energies(half.q, half.qd), dt / 2, b,
                                      fc)[::2]
    k = min(len(r), len(rh))
    return np.abs(np.asarray(r[:k], float) - np.asarray(rh[:k], float)) / spec.energy_scale()


def reached_phenomena(spec, q) -> tuple[bool, ...]:
    """(a joint at or past a limit, the tip sphere on or in an obstacle) over the planar samples ``q``, for the
    phenomena ``spec`` declares (limits with a law, obstacles) (:mod:`crossdyn.comparison.coverage`'s measures)."""
    from crossdyn.comparison.coverage import closest_approach

    out = []
    q = np.asarray(q, float)
    for j, link in enumerate(spec.links):
        if link.limits is not None and link.limit_stiffness > 0:
            out.append(bool(np.any(q[:, j] <= link.limits[0]) or np.any(q[:, j] >= link.limits[1])))
    if spec.obstacles:
        out.append(bool(min(closest_approach(spec, q), default=1.0) <= 0.0))
    return tuple(out)


def study_of(scheme: str, order: int, q_dt, q_half_on_dt, duration: float,
             reached: Callable[[np.ndarray], tuple[bool, ...]] | None = None,
             balance: np.ndarray | None = None) -> dt_choice.SchemeStudy:
    """The :class:`~crossdyn.comparison.dt_choice.SchemeStudy` of a replica's run at dt (``q_dt``, K + 1 samples)
    and at dt/2 sampled on the dt grid: d and R over the whole run and over its first T/2ʲ
    (j = 1 … :data:`~crossdyn.comparison.dt_choice.MAX_CUTS`); ``reached(q)``: which declared phenomena the
    samples ``q`` reach (:func:`reached_phenomena`), a prefix being usable only where it reaches what the whole
    run does; ``balance``: the work–energy residual's change per sample (:func:`balance_change`), or None."""
    from crossdyn.comparison import metrics

    k = min(len(q_dt), len(q_half_on_dt))
    q, qh = np.asarray(q_dt, float)[:k], np.asarray(q_half_on_dt, float)[:k]
    whole = reached(q) if reached is not None else ()

    def bal(m: int) -> float | None:
        return None if balance is None or not len(balance) else float(np.max(balance[:m]))

    prefixes = []
    for j in range(1, dt_choice.MAX_CUTS + 1):
        m = (k - 1) // 2 ** j + 1  # the samples of [0, T/2^j]
        part = reached(q[:m]) if reached is not None else ()
        exercised = all(p or not w for p, w in zip(part, whole, strict=True))
        prefixes.append((duration / 2 ** j, metrics.max_abs(q[:m], qh[:m]), joint_range(q[:m]), exercised, bal(m)))
    return dt_choice.SchemeStudy(scheme, order, metrics.max_abs(q, qh), joint_range(q), tuple(prefixes), bal(k))


def choose_planar_dt(spec, profile, start, steps: tuple[float, float], engines, tol,
                     friction_at: Callable[[float], Any], jobs: int = 1) -> dt_choice.DtChoice:
    """The step of a planar comparison whose dt the user did not give (:func:`dt_choice.judgeable_dt`), from the
    replica studies of the engines' schemes from ``start`` = (q0, q̇0) at ``steps`` = (dt, duration), up to ``jobs``
    schemes' studies at a time (:func:`crossdyn.processes.fork_map`: the same studies); ``friction_at(dt)`` the
    applied friction law at a step (or None)."""
    from crossdyn.processes import fork_map

    (q0, qd0), (dt, duration) = start, steps
    studies = fork_map(lambda s: planar_study(s, spec, profile, q0, qd0, dt, duration, friction_at(dt)),
                       engine_schemes(engines), jobs)
    return dt_choice.judgeable_dt(dt, studies, tol, duration)


GENTLE_KP, GENTLE_KD = 100.0, 20.0
"""The gentler contact motion's gains (N m/rad, N m s/rad): ``pd-gravity``'s defaults."""
GENTLE_DURATION = 1.5
"""The gentler contact motion's run (s) where the duration asked for is longer: ``pd-gravity`` brings the tip onto
the obstacle within about half a second (planar3r-wall: first touch at 0.44 s) and holds it pressed there; 1.5 s
covers the touch and a second of pressed contact, and the rest of a 3 s run is more of the same press at twice the
cost (issue 39's time budget: planar3r-wall's default comparison took 52 s over 3 s)."""


def gentle_duration(duration: float, dt: float) -> float:
    """min(``duration``, :data:`GENTLE_DURATION`), where that is a whole number of ``dt`` steps (else
    ``duration``)."""
    if duration <= GENTLE_DURATION or not dt_choice.whole_steps(GENTLE_DURATION, dt):
        return duration
    return GENTLE_DURATION


def gentle_contact_profile(spec, profile):
    """A gentler motion for an arm with contact whose default scenario (``drop``, ``swing``: a free fall or a free
    swing into the obstacle, which bounces, and a free 3R swing is chaotic) no step within the budget makes
    judgeable: ``pd-gravity`` (τ = k_p (q_d − q) − k_d q̇ + G(q)) towards the pose the scenario strikes — the
    straight arm mirrored about hanging for ``swing``, hanging for ``drop`` (both inside the obstacle by the
    scenarios' construction, :mod:`crossdyn.inputs.profiles.contact`) — so that the tip is pressed onto the
    obstacle and stays there: contact exercised, no chaos.  None for another profile."""
    from crossdyn.analytic.gravity_helpers import hanging_configuration
    from crossdyn.inputs.profiles import make_profile

    params = profile.params() if hasattr(profile, "params") else {}
    name = params.get("name")
    if name not in ("drop", "swing"):
        return None
    hang = float(hanging_configuration(spec)[0])
    pose = np.asarray(params.get("pose_rad"), float)
    target = np.zeros(spec.n)
    target[0] = 2 * hang - pose[0] if name == "swing" else hang
    return make_profile("pd-gravity", spec, target=tuple(target.tolist()), kp=GENTLE_KP, kd=GENTLE_KD)
