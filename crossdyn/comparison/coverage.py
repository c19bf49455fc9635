"""What a run exercised of a phenomenon the arm declares, and a start that exercises what it did not.

A group or section the arm declares (limits, contact, friction, effort) is judged only on what the run showed it:
a run that never reached a limit, never touched an obstacle, never slid a joint with Coulomb friction or never
saturated a motor checked nothing about it, and says INCONCLUSIVE with the measured reason (the range reached
against the limit, the closest approach against the obstacle, the speed against the law's kinetic threshold, the
largest torque against the effort) and a start or profile computed from the arm's own numbers that does
exercise it (``try --profile zero --q0 … --qd0 …``).  Each suggestion is built to reach its event within a few
steps whatever gravity does:

* **limit**: joint j a distance δ = min(0.02, ¼ of its range) inside the limit closest to what the run reached,
  moving towards it at v = max(0.5, 2 √(2 δ a)) rad/s, a = |q̈_j| of the arm at rest under gravity alone there
  (v² > 2 δ a: gravity cannot turn it back before it arrives); the other joints where the run started;
* **contact**: the tip sphere 1 cm off obstacle k (a minimum-norm Newton step from the run's start), moving
  along −n at v = max(0.5, 2 √(2 · 0.01 · a_n)) m/s, a_n = |n·ẍ_tip| at rest under gravity;
* **friction**: joint j started at v = 2 · kinetic threshold + (f_c / M_jj + |q̈_j|) · 20 dt rad/s, so that it
  slides for about 20 steps at least before friction and gravity could stop it;
* **effort**: the ``constant`` profile at 1.5 × the effort on the joint closest to saturating (saturates at once).

Every suggestion is a valid start (:func:`crossdyn.inputs.start.start_problems`); tests/test_coverage_verdicts.py
runs each printed one and checks that it turns the verdict into PASS with checks > 0.
"""
from __future__ import annotations

import math

import numpy as np

from crossdyn.inputs.start import start_problems
from crossdyn.models.spec import ArmSpec

LIMIT_INSET_RAD = 0.02
"""How far inside the limit a suggested limit start sits (at most a quarter of the joint's range)."""
CONTACT_GAP_M = 0.01
"""How far off the obstacle a suggested contact start puts the tip sphere."""
FRICTION_STEPS = 20
"""A suggested friction start slides for about this many steps before friction and gravity could stop it."""
EFFORT_FACTOR = 1.5
"""A suggested effort profile commands this multiple of the joint's effort."""


def numbers(x) -> str:
    """A vector as the command line takes it: ``-1.4208,0.075,-0.05``."""
    return ",".join(f"{float(v):.4f}".rstrip("0").rstrip(".") if v != 0 else "0" for v in np.asarray(x).ravel())


def start_option(profile: str, q, qd) -> str:
    """``--profile zero --q0 … --qd0 …``."""
    return f"--profile {profile} --q0 {numbers(q)} --qd0 {numbers(qd)}"


def _rest_acceleration(spec: ArmSpec, q) -> np.ndarray:
    """q̈ of the arm at rest at ``q`` under gravity alone (no torque)."""
    from crossdyn import analytic

    z = np.zeros(spec.n)
    return np.asarray(analytic.forward_dynamics(spec, np.asarray(q, float), z, z), dtype=float)


# --- limits -------------------------------------------------------------------------------------------------------

def limit_ranges(spec: ArmSpec, q) -> str:
    """``q1 stayed in [-1.2, -0.9] against [-2.3, -0.85]; …`` for every joint with limits."""
    q = np.asarray(q, float)
    return "; ".join(f"q{j + 1} stayed in [{q[:, j].min():.3g}, {q[:, j].max():.3g}] against "
                     f"[{link.limits[0]:.3g}, {link.limits[1]:.3g}]"
                     for j, link in enumerate(spec.links) if link.limits is not None)


def limit_start(spec: ArmSpec, q0, q) -> tuple[int, str, np.ndarray, np.ndarray] | None:
    """(joint, side, q0, q̇0) of a start that enters the limit closest to what the run ``q`` reached (module
    docstring), or None when no joint with a limit gives a valid start."""
    q = np.asarray(q, float)
    options = []
    for j, link in enumerate(spec.links):
        if link.limits is None or link.limit_stiffness <= 0:
            continue
        lo, hi = link.limits
        options += [(q[:, j].min() - lo, j, "lower"), (hi - q[:, j].max(), j, "upper")]
    for _, j, side in sorted(options):
        lo, hi = spec.links[j].limits or (-math.inf, math.inf)
        delta = min(LIMIT_INSET_RAD, 0.25 * (hi - lo))
        start = np.array(q0, dtype=float)
        start[j] = lo + delta if side == "lower" else hi - delta
        if start_problems(spec, start):
            continue
        a = abs(float(_rest_acceleration(spec, start)[j]))
        v = math.ceil(10 * max(0.5, 2 * math.sqrt(2 * delta * a))) / 10
        qd = np.zeros(spec.n)
        qd[j] = -v if side == "lower" else v
        return j + 1, side, start, qd
    return None


def limit_reason(spec: ArmSpec, reference, q0) -> str:
    """INCONCLUSIVE reason of a run whose reference entered no limit: the ranges and a start that enters one."""
    s = limit_start(spec, q0, reference.q)
    how = ("; no valid start near a limit found: give --q0 near one" if s is None else
           f"; try {start_option('zero', s[2], s[3])} (joint {s[0]} starts {LIMIT_INSET_RAD:g} rad inside its "
           f"{s[1]} limit, moving towards it)")
    return f"no joint reached a limit: {limit_ranges(spec, reference.q)}" + how


# --- contact ------------------------------------------------------------------------------------------------------

def _tip(spec: ArmSpec, q):
    from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian

    p = spec.params()
    return np.asarray(end_effector(p, q), float), np.asarray(end_effector_jacobian(p, q), float)


def contact_start(spec: ArmSpec, q0, obstacle: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(q0, q̇0) with the tip sphere :data:`CONTACT_GAP_M` off obstacle ``obstacle`` (0-based), moving into it
    (module docstring); None when the Newton steps find no valid such start."""
    o, r = spec.obstacles[obstacle], spec.contact.radius if spec.contact is not None else 0.0
    a, n = np.asarray(o.point[:2], float), np.asarray(o.normal[:2], float)
    q = np.array(q0, dtype=float)
    for _ in range(50):
        x, J = _tip(spec, q)
        g = float((x - a) @ n) - r - CONTACT_GAP_M
        jn = J.T @ n
        if abs(g) < 1e-9 or not jn @ jn > 1e-12:
            break
        q = q - g * jn / (jn @ jn)
    x, J = _tip(spec, q)
    jn = J.T @ n
    if abs(float((x - a) @ n) - r - CONTACT_GAP_M) > 1e-6 or start_problems(spec, q) or not jn @ jn > 1e-12:
        return None
    a_n = abs(float(n @ (J @ _rest_acceleration(spec, q))))
    v = math.ceil(10 * max(0.5, 2 * math.sqrt(2 * CONTACT_GAP_M * a_n))) / 10
    return q, -v * jn / (jn @ jn)


def closest_approach(spec: ArmSpec, q) -> list[float]:
    """Per obstacle, the least distance (m) between the tip sphere's surface and the obstacle over the run."""
    from crossdyn.inputs.start import tip_penetrations

    pens = np.array([tip_penetrations(spec, qi) for qi in np.asarray(q, float)])
    return [float(-pens[:, k].max()) for k in range(pens.shape[1])] if pens.size else []


def contact_reason(spec: ArmSpec, reference, q0) -> str:
    """INCONCLUSIVE reason of a run whose reference never touched an obstacle: the closest approach to each and a
    start that touches one."""
    gaps = closest_approach(spec, reference.q)
    where = "; ".join(f"obstacle {k + 1} (point {list(o.point[:2])}, normal {list(o.normal[:2])}): closest "
                      f"approach of the tip sphere {g:.3g} m" for k, (o, g) in enumerate(zip(spec.obstacles, gaps,
                                                                                              strict=False)))
    for k in np.argsort(gaps):
        s = contact_start(spec, q0, int(k))
        if s is not None:
            return (f"the tip never touched an obstacle: {where}; try {start_option('zero', *s)} (the tip sphere "
                    f"starts {CONTACT_GAP_M:g} m off obstacle {k + 1}, moving into it)")
    return f"the tip never touched an obstacle: {where}; no valid start near an obstacle found: give --q0 near one"


# --- friction -----------------------------------------------------------------------------------------------------

def friction_start(spec: ArmSpec, q0, threshold: float, dt: float) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(joint, q0, q̇0): the joint with f_c > 0 that the least start speed makes slide (module docstring)."""
    from crossdyn import analytic

    q = np.array(q0, dtype=float)
    M = analytic.mass_matrix(spec, q)
    acc = _rest_acceleration(spec, q)
    best = None
    for j, link in enumerate(spec.links):
        if link.friction <= 0:
            continue
        v = 2 * threshold + (link.friction / M[j, j] + abs(acc[j])) * FRICTION_STEPS * dt
        v = math.ceil(10 * v) / 10
        if best is None or v < best[0]:
            best = (v, j)
    if best is None:
        return None
    qd = np.zeros(spec.n)
    qd[best[1]] = best[0]
    return best[1] + 1, q, qd


def friction_reason(spec: ArmSpec, reference, q0, threshold: float, dt: float) -> str:
    """INCONCLUSIVE reason of a run in which no joint with Coulomb friction slid: each one's largest |q̇| against
    the kinetic threshold, and a start that makes one slide."""
    qd = np.abs(np.asarray(reference.qd, float))
    speeds = "; ".join(f"joint {j + 1} (f_c = {link.friction:g} N m) reached |qd| {qd[:, j].max():.3g} rad/s"
                       for j, link in enumerate(spec.links) if link.friction > 0)
    s = friction_start(spec, q0, threshold, dt)
    how = "" if s is None else f"; try {start_option('zero', s[1], s[2])} (joint {s[0]} starts sliding)"
    return (f"no joint with Coulomb friction slid (kinetic above |qd| = {threshold:.3g} rad/s, 2 v_s): {speeds}"
            + how)


# --- effort -------------------------------------------------------------------------------------------------------

def effort_profile(spec: ArmSpec, max_tau) -> tuple[int, str] | None:
    """(joint, ``constant@value=…``): the profile commanding :data:`EFFORT_FACTOR` × the effort on the joint
    whose largest |τ| came closest to it."""
    ratios = [(float(max_tau[j]) / link.effort, j) for j, link in enumerate(spec.links)
              if link.effort is not None and math.isfinite(link.effort) and link.effort > 0]
    if not ratios:
        return None
    j = max(ratios)[1]
    value = np.zeros(spec.n)
    value[j] = EFFORT_FACTOR * float(spec.links[j].effort or 0.0)
    return j + 1, f"constant@value={numbers(value)}"


def effort_reason(spec: ArmSpec, max_tau, q0) -> str:
    """INCONCLUSIVE reason of a run in which no joint saturated: each one's largest |τ| against its effort, and a
    profile that saturates one."""
    parts = "; ".join(f"joint {j + 1} max |tau| {float(max_tau[j]):.3g} N m against effort {link.effort:g} N m"
                      for j, link in enumerate(spec.links) if link.effort is not None)
    s = effort_profile(spec, max_tau)
    how = "" if s is None else (f"; try --profile {s[1]} --q0 {numbers(q0)} (joint {s[0]} commanded "
                                f"{EFFORT_FACTOR:g} x its effort)")
    return f"no joint saturated: {parts}" + how
