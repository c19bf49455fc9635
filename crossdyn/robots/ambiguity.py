"""A robot file's ambiguities as records: the links a file writes so that engines read them differently, and the
readings engines are known to take.

Two kinds, each found by :func:`link_ambiguity` on a link's ``<inertial>`` as the file writes it:

* :attr:`AmbiguityKind.MASSLESS_INERTIA` — mass 0 with a nonzero inertia (pybullet_data's Panda: ``panda_link8``
  and ``panda_grasptarget``, diag(0.1)).  No rigid body has rotational inertia without mass.  Readings:
  *kept* (mass 0, inertia as written: crossdyn, Pinocchio, PyBullet, DART, MuJoCo as crossdyn loads it, fusestatic
  off — measured on that Panda), *dropped* (the link ignored: MuJoCo's URDF importer with fusestatic, its default;
  iDynTree keeps one of the Panda's two), *Drake's sphere* (Drake's URDF parser, whose central-inertia check fails on mass 0,
  puts a solid sphere of water density, 1000 kg/m³, of 1 kg at the inertial origin instead).
* :attr:`AmbiguityKind.OFF_TRIANGLE` — principal moments I1 + I2 < I3 (pybullet_data's xArm6: ``link2``,
  ``link3``).  No rigid body has them.  Readings: *kept* (as written: crossdyn, Pinocchio, DART), *inertia zeroed*
  (mass and CoM kept: PyBullet, its warning "Bad inertia tensor properties, setting inertia to zero"), *Drake's
  sphere* (a solid sphere of water density with the link's mass at its CoM); MuJoCo refuses the file (its
  ``balanceinertia`` would change the moments: off, a knob).

Drake's sphere (its parser's ``ParseSpatialInertia`` fallback): mass m' = m where m > 0, else 1 kg; radius
r = ∛(3 m' / (4π ρ)), ρ = 1000 kg/m³; I = (2/5) m' r² 1 about the inertial origin.

Each reading is the link's :class:`~crossdyn.robots.model.Inertial` in the frame of the moving body it belongs to
(links welded by fixed joints are merged, :attr:`Body.merged`).  A body's inertial is the sum of its links', and
inverse dynamics is linear in each body's 10 parameters π = (m, m c, I_o) (mass, first moment, inertia about the
body frame's origin, :func:`params`), so :func:`with_readings` replaces a link's contribution by another reading
exactly: π_body' = π_body − π_link(written) + π_link(reading).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from crossdyn.robots.model import Ambiguity, AmbiguityKind, Body, Inertial, Reading, RobotModel  # noqa: F401

WATER_DENSITY = 1000.0
"""kg/m³: the density of the sphere Drake's URDF parser puts in place of an inertia it cannot represent."""

MAX_COMBINATIONS = 256
"""At most this many combinations of readings are tried (3 readings on up to 5 ambiguous links)."""


def drake_sphere(mass: float, com: np.ndarray) -> Inertial:
    """Drake's replacement inertial (module docstring): a solid sphere of water density, mass ``mass`` (1 kg where
    ``mass`` ≤ 0), centred at ``com``."""
    m = mass if mass > 0.0 else 1.0
    r = (3.0 * m / (4.0 * math.pi * WATER_DENSITY)) ** (1.0 / 3.0)
    return Inertial(m, com, 0.4 * m * r * r * np.eye(3))


def is_off_triangle(inertia: np.ndarray, tol: float) -> bool:
    """True where the principal moments I1 ≤ I2 ≤ I3 are nonnegative (within ``tol`` · max|I|) and
    I1 + I2 < I3 (1 − ``tol``) (:mod:`crossdyn.robots.checks`' rule)."""
    I = np.asarray(inertia, dtype=float)
    scale = float(np.max(np.abs(I))) if I.size else 0.0
    if scale == 0.0:
        return False
    m1, m2, m3 = np.linalg.eigvalsh(0.5 * (I + I.T))
    return bool(m1 >= -tol * scale and m1 + m2 < m3 * (1.0 - tol))


def link_ambiguity(link: str, body: str, written: Inertial, R: np.ndarray, p: np.ndarray,
                   tol: float) -> Ambiguity | None:
    """The ambiguity of one link's inertial ``written`` (in the link's frame), or None; ``R``, ``p``: the link's
    frame in its body's frame (identity and 0 for the body's own link)."""
    def moved(i: Inertial) -> Inertial:
        return i.transformed(R, p)

    kept = moved(written)
    sphere = moved(drake_sphere(written.mass, written.com))
    if written.mass == 0.0 and np.any(written.inertia):
        return Ambiguity(AmbiguityKind.MASSLESS_INERTIA, link, body, (
            Reading("inertia kept, mass 0", "crossdyn, Pinocchio, PyBullet, DART", kept),
            Reading("inertia dropped", "MuJoCo's URDF importer with fusestatic", moved(Inertial.zero())),
            Reading("a 1 kg sphere of water density at the inertial origin", "Drake's URDF parser", sphere)))
    if is_off_triangle(written.inertia, tol):
        zeroed = moved(Inertial(written.mass, written.com, np.zeros((3, 3))))
        return Ambiguity(AmbiguityKind.OFF_TRIANGLE, link, body, (
            Reading("kept as written", "crossdyn, Pinocchio, DART", kept),
            Reading("inertia zeroed, mass and CoM kept", "PyBullet", zeroed),
            Reading("a sphere of water density and the link's mass at its CoM",
                    "Drake's URDF parser", sphere)))
    return None


def params(i: Inertial) -> np.ndarray:
    """The 10 parameters inverse dynamics is linear in: m, m c, I_o = I_c + m (‖c‖² 1 − c cᵀ) (xx, yy, zz, xy, xz,
    yz)."""
    I_o = i.about_origin()
    return np.array([i.mass, *(i.mass * i.com), I_o[0, 0], I_o[1, 1], I_o[2, 2], I_o[0, 1], I_o[0, 2], I_o[1, 2]])


def from_params(pi: np.ndarray) -> Inertial:
    """:func:`params` inverted (mass 0: CoM at the origin, I_c = I_o)."""
    m, h = float(pi[0]), np.asarray(pi[1:4], dtype=float)
    xx, yy, zz, xy, xz, yz = (float(x) for x in pi[4:])
    I_o = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if m == 0.0:
        return Inertial(0.0, np.zeros(3), I_o)
    c = h / m
    return Inertial(m, c, I_o - m * (float(c @ c) * np.eye(3) - np.outer(c, c)))


def with_readings(model: RobotModel, choice: Sequence[tuple[Ambiguity, Reading]]) -> RobotModel:
    """``model`` with each ambiguous link read as chosen: π_body += π(reading) − π(first reading, the file's)."""
    delta: dict[str, np.ndarray] = {}
    for amb, reading in choice:
        d = params(reading.inertial) - params(amb.readings[0].inertial)
        delta[amb.body] = delta.get(amb.body, np.zeros(10)) + d
    bodies = [Body(b.name, from_params(params(b.inertial) + delta[b.name]), b.merged) if b.name in delta else b
              for b in model.bodies]
    return replace(model, bodies=tuple(bodies))


def combinations(ambiguities: Sequence[Ambiguity]) -> Iterator[tuple[tuple[Ambiguity, Reading], ...]]:
    """Every combination of readings other than the file's own (all first readings), the fewest links read
    otherwise first, at most :data:`MAX_COMBINATIONS`."""
    n, made = len(ambiguities), 0
    for k in range(1, n + 1):
        for changed in itertools.combinations(range(n), k):
            for picks in itertools.product(*[range(1, len(ambiguities[i].readings)) for i in changed]):
                pick = dict(zip(changed, picks, strict=True))
                yield tuple((a, a.readings[pick.get(i, 0)]) for i, a in enumerate(ambiguities))
                made += 1
                if made >= MAX_COMBINATIONS:
                    return


def choice_words(choice: Sequence[tuple[Ambiguity, Reading]]) -> str:
    """The links read otherwise in ``choice``, grouped by reading: "panda_link8 and panda_grasptarget as a 1 kg
    sphere of water density at the inertial origin (as Drake's URDF parser reads them)"; the others "as
    written"."""
    by: dict[tuple[str, str], list[str]] = {}
    for amb, reading in choice:
        if reading is not amb.readings[0]:
            by.setdefault((reading.name, reading.who), []).append(amb.link)
    parts = []
    for (name, who), links in by.items():
        names = ", ".join(links[:-1]) + " and " + links[-1] if len(links) > 1 else links[0]
        verb = "read" if "," in who or " and " in who else "reads"  # "Drake's URDF parser reads", "… parsers read"
        parts.append(f"{names} as {name} (as {who} {verb} {'them' if len(links) > 1 else 'it'})")
    kept = [a.link for a, r in choice if r is a.readings[0]]
    if kept and parts:
        parts.append(f"{', '.join(kept)} as written")
    return "; ".join(parts)


WHY = {AmbiguityKind.MASSLESS_INERTIA: "no rigid body has it",
       AmbiguityKind.OFF_TRIANGLE: "no rigid body has it",
       AmbiguityKind.BALANCED: "no rigid body has it, and the file asks MuJoCo's compiler to change it",
       AmbiguityKind.BOUNDED: "the file states a value and a floor above it",
       AmbiguityKind.INERTIAL_WITHOUT_GEOMS: "the file states an inertial and tells the compiler to set it aside "
                                             "for geoms that are not there"}
"""Why each kind can be read in more than one way."""


def ambiguity_words(choice: Sequence[tuple[Ambiguity, Reading]]) -> str:
    """"the file is ambiguous (mass 0 with an inertia on panda_link8, panda_grasptarget: no rigid body has
    it, and engines read it differently)": the words ``compare`` and ``audit`` share.  Kinds with another reason
    than "no rigid body has it" (:data:`WHY`, the MJCF compiler's kinds) each say theirs."""
    kinds: dict[AmbiguityKind, list[str]] = {}
    for amb, _ in choice:
        kinds.setdefault(amb.kind, []).append(amb.link)
    if all(WHY[k] == WHY[AmbiguityKind.MASSLESS_INERTIA] for k in kinds):
        what = "; ".join(f"{kind.value} on {', '.join(links)}" for kind, links in kinds.items())
        return f"the file is ambiguous ({what}: no rigid body has it, and engines read it differently)"
    what = "; ".join(f"{kind.value} on {', '.join(links)} ({WHY[kind]})" for kind, links in kinds.items())
    return f"the file is ambiguous ({what}: engines read it differently)"
