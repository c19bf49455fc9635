"""Start states: which are valid, and the one default start every command uses.

A start q0 is **valid** when every joint with limits [lo, hi] has lo − ε_q ≤ q_i ≤ hi + ε_q
(ε_q = :data:`LIMIT_TOLERANCE` rad) and the tip sphere (radius r, centre p(q0)) penetrates no obstacle by more
than ε_x = :data:`DEPTH_TOLERANCE` m: δ_k = r − (p − a_k)·n_k ≤ ε_x for every obstacle k (point a_k, outward
normal n_k).  A run from an invalid start is refused (:class:`InvalidStart`, exit 2) unless asked for
(``--allow-invalid-start``).

The **default start** (:func:`default_start`) is the same for ``compare``, ``sweep`` and ``compare --batch``
(the centre of its random starts): the hanging start h = hanging pose + 0.15 (−1)ⁱ/(1 + i) rad when valid;
otherwise, rule by rule,

1. ``clipped``: h with each joint clipped into its limits (the nearest pose within the limits), when that is
   valid and its tip clears every obstacle;
2. ``drop``: when the tip is inside an obstacle below it, the default ``drop`` profile's pose
   (:func:`crossdyn.inputs.profiles.drop_pose`: the straight arm turned from hanging until its tip clears every
   obstacle by 0.3 m), when that is valid — so a floor arm starts at the same pose whatever its profile;
3. ``lifted``: the clipped pose with joint 1 turned away from hanging by the smallest angle a (0.005-rad steps,
   +a before −a) for which joint 1 stays within its limits and the tip sphere clears every obstacle by its own
   radius (δ_k ≤ −r).

The rule used is returned with the pose (:class:`DefaultStart`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from crossdyn.errors import InputError
from crossdyn.models.spec import ArmSpec

__all__ = ["DEPTH_TOLERANCE", "LIMIT_TOLERANCE", "HANGING_OFFSET", "DefaultStart", "InvalidStart",
           "hanging_start", "tip_penetrations", "start_problems", "check_start", "default_start"]

DEPTH_TOLERANCE = 1e-9
"""m: the tip sphere may penetrate an obstacle by this much at the start (round-off of a pose on the surface)."""
LIMIT_TOLERANCE = 1e-9
"""rad: a joint may start this far beyond a limit (round-off of a pose on the limit)."""
HANGING_OFFSET = 0.15
"""rad: the hanging start offsets joint i by 0.15 (−1)ⁱ/(1 + i) from the hanging pose (i = 0 … n − 1)."""
_STEP = 0.005


class InvalidStart(InputError):
    """A start inside an obstacle or beyond a joint limit (exit 2)."""


@dataclass(frozen=True)
class DefaultStart:
    """The default start ``q`` (rad, at rest) and the ``rule`` that chose it (``hanging``, ``clipped``,
    ``drop`` or ``lifted``, see the module docstring), with ``why`` a sentence for the log and summary."""
    q: np.ndarray
    rule: str
    why: str


def hanging_start(spec: ArmSpec) -> np.ndarray:
    """The hanging pose plus offsets 0.15 (−1)ⁱ/(1 + i) rad: a start near the stable equilibrium."""
    from crossdyn.analytic.gravity_helpers import hanging_configuration

    return hanging_configuration(spec) + np.array([HANGING_OFFSET * (-1) ** i / (1 + i) for i in range(spec.n)])


def _tip(spec: ArmSpec, q) -> np.ndarray:
    """The tip (centre of the contact sphere) in the plane: Σ_k L_k (cos θ_k, sin θ_k), θ_k = q_1 + … + q_k."""
    th = np.cumsum(np.asarray(q, dtype=float))
    L = np.array([link.length for link in spec.links])
    return np.array([L @ np.cos(th), L @ np.sin(th)])


def tip_penetrations(spec: ArmSpec, q) -> np.ndarray:
    """δ_k = r − (p(q) − a_k)·n_k per obstacle (m; > 0: the tip sphere is inside obstacle k); empty without
    contact."""
    if not spec.has_contact or spec.contact is None:
        return np.zeros(0)
    p, r = _tip(spec, q), spec.contact.radius
    return np.array([r - float((p - np.asarray(o.point[:2])) @ np.asarray(o.normal[:2])) for o in spec.obstacles])


def start_problems(spec: ArmSpec, q0) -> list[str]:
    """Why ``q0`` is not a valid start (empty when it is): each joint beyond a limit by more than
    :data:`LIMIT_TOLERANCE` and each obstacle the tip sphere penetrates by more than :data:`DEPTH_TOLERANCE`."""
    q = np.asarray(q0, dtype=float).reshape(spec.n)
    out = []
    for i, link in enumerate(spec.links):
        if link.limits is None:
            continue
        lo, hi = link.limits
        if q[i] < lo - LIMIT_TOLERANCE:
            out.append(f"q{i + 1} = {q[i]:.6g} rad is {lo - q[i]:.3g} rad below its lower limit {lo:g} rad")
        elif q[i] > hi + LIMIT_TOLERANCE:
            out.append(f"q{i + 1} = {q[i]:.6g} rad is {q[i] - hi:.3g} rad above its upper limit {hi:g} rad")
    for k, d in enumerate(tip_penetrations(spec, q)):
        if d > DEPTH_TOLERANCE:
            o = spec.obstacles[k]
            out.append(f"the tip sphere is {d:.3g} m inside obstacle {k + 1} (point {list(o.point[:2])}, normal "
                       f"{list(o.normal[:2])})")
    return out


def check_start(spec: ArmSpec, q0, source: str = "q0") -> None:
    """Raise :class:`InvalidStart` (exit 2) naming each joint and obstacle when ``q0`` is not a valid start."""
    problems = start_problems(spec, q0)
    if problems:
        raise InvalidStart(f"start {source} = {np.round(np.asarray(q0, float), 6).tolist()} rad is not valid: "
                           f"{'; '.join(problems)}; move q0 or pass --allow-invalid-start", "q0",
                           tuple(np.asarray(q0, float).tolist()))


def _clear(spec: ArmSpec, q, margin: float) -> bool:
    pen = tip_penetrations(spec, q)
    return not start_problems(spec, q) and (pen.size == 0 or float(pen.max()) <= -margin)


def _drop(spec: ArmSpec) -> np.ndarray | None:
    """The ``drop`` profile's default pose when it exists and is a valid start, else None."""
    from crossdyn.inputs.profiles import ProfileError, drop_pose

    if not spec.has_contact:
        return None
    try:
        q = drop_pose(spec)
    except ProfileError:
        return None
    return None if start_problems(spec, q) else q


def default_start(spec: ArmSpec) -> DefaultStart:
    """The default start of every command (rules in the module docstring); raises :class:`InvalidStart` when
    no rule finds a valid pose (an arm whose spec check let it through)."""
    h = hanging_start(spec)
    if not start_problems(spec, h):
        return DefaultStart(h, "hanging", "the hanging start (hanging pose + 0.15 (-1)^i/(1 + i) rad)")
    lo = np.array([-math.inf if link.limits is None else link.limits[0] for link in spec.links])
    hi = np.array([math.inf if link.limits is None else link.limits[1] for link in spec.links])
    c = np.clip(h, lo, hi)
    if not start_problems(spec, c):
        return DefaultStart(c, "clipped", "the hanging start clipped into the joint limits")
    drop = _drop(spec)
    if drop is not None:
        return DefaultStart(drop, "drop", "the drop pose: the straight arm turned from hanging until its tip "
                                          "clears every obstacle by 0.3 m (crossdyn.inputs.profiles.drop_pose)")
    r = spec.contact.radius if spec.contact is not None else 0.0
    for a in np.arange(_STEP, 2 * math.pi, _STEP):
        for s in (a, -a):
            q = c.copy()
            q[0] += s
            if lo[0] - LIMIT_TOLERANCE <= q[0] <= hi[0] + LIMIT_TOLERANCE and _clear(spec, q, r):
                return DefaultStart(q, "lifted", f"the hanging start (clipped into the limits) with joint 1 turned "
                                                 f"{s:+.3f} rad, the smallest turn at which the tip sphere clears "
                                                 f"every obstacle by its radius {r:g} m")
    raise InvalidStart(f"{spec.name}: no default start: the hanging start is not valid "
                       f"({'; '.join(start_problems(spec, h))}) and turning joint 1 finds no valid pose; give q0",
                       "q0", None)
