"""What MuJoCo's compiler makes of a body's inertial, and where other MJCF readers take it otherwise: the MJCF
reader's ambiguity records (:mod:`crossdyn.robots.ambiguity`, the URDF reader's kinds beside them).

MuJoCo's compiler, per body (measured with MuJoCo 4.0.1 on small files): the inertial from the ``<inertial>``
element or the geoms (``inertiafromgeom``), then ``boundmass``/``boundinertia`` (the mass and each principal moment
raised to at least the bound), then ``balanceinertia`` (principal moments off the triangle inequality all set to
their mean, trace/3: diag(0.01, 0.01, 0.1) becomes 0.04 · 1; bounded first: with ``boundinertia="0.05"`` the same
moments become (0.05, 0.05, 0.1), which it leaves).  crossdyn reads each body as MuJoCo's compiler does; where
another engine's MJCF parser reads it otherwise, measured on the same files (Pinocchio 4.1's
``buildModelFromMJCF``, Drake's ``Parser``, Newton 1.8's ``add_mjcf``), the body gets a record whose first reading is
MuJoCo's:

* :attr:`AmbiguityKind.INERTIAL_WITHOUT_GEOMS` — ``inertiafromgeom="true"`` and a body with an ``<inertial>`` but no
  geom: MuJoCo keeps the ``<inertial>``; Pinocchio, Drake and Newton read the body massless.
* :attr:`AmbiguityKind.BOUNDED` — a mass or principal moment below ``boundmass``/``boundinertia``: MuJoCo, Pinocchio
  and Newton raise it; Drake's MJCF parser reads the ``<inertial>`` as written.
* :attr:`AmbiguityKind.BALANCED` — ``balanceinertia="true"`` and moments off the triangle inequality: MuJoCo and
  Newton balance them; Pinocchio reads them as written; Drake refuses the body (no rigid body has them).

Not recorded, because no engine reads them otherwise (each either agrees or refuses, and a refusal is
``unsupported``): a moving body of mass 0 with an inertia (MuJoCo and Drake refuse it; Pinocchio and Newton keep it,
as crossdyn), a welded one (MuJoCo, Pinocchio, Newton keep it; Drake refuses), moments off the triangle inequality
without ``balanceinertia`` (MuJoCo, Drake, Newton refuse; Pinocchio keeps), a moving body with no mass or with a
point mass (MuJoCo refuses; the others agree with crossdyn).  Geoms with ``contype = conaffinity = 0`` are read
otherwise by Pinocchio (as visuals, without mass) but the file is not ambiguous there: MuJoCo's compiler counts
every geom in ``inertiagrouprange`` whatever its collision flags, so Pinocchio's departure stays a FAIL.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.robots.model import Ambiguity, AmbiguityKind, Inertial, Reading
from crossdyn.robots.mjcf_xml import Compiler


def balanced(inertial: Inertial, c: Compiler) -> Inertial:
    """``balanceinertia``: principal moments I1 ≤ I2 ≤ I3 with I1 + I2 < I3 all set to their mean (trace/3, any
    orientation then), as MuJoCo's compiler does; otherwise (or with the option off) ``inertial`` itself."""
    if not c.balanceinertia or not off_triangle(inertial.inertia):
        return inertial
    return Inertial(inertial.mass, inertial.com, float(np.trace(inertial.inertia)) / 3.0 * np.eye(3))


def off_triangle(inertia: np.ndarray) -> bool:
    """True where the principal moments fail MuJoCo's test I1 + I2 ≥ I3 (exact, as its compiler compares)."""
    m1, m2, m3 = np.linalg.eigvalsh(0.5 * (inertia + inertia.T))
    return bool(m1 + m2 < m3)


@dataclass(frozen=True)
class BodyInertial:
    """One body's inertial as MuJoCo's compiler makes it (``compiled``) and each stage before: ``found`` (from the
    ``<inertial>`` or the geoms), ``bounded`` (after boundmass/boundinertia); ``without_geoms``: the ``<inertial>``
    was kept only because ``inertiafromgeom="true"`` found no geom in the body."""

    found: Inertial
    bounded: Inertial
    compiled: Inertial
    without_geoms: bool = False


def records(body: BodyInertial, link: str, owner: str, R: np.ndarray, p: np.ndarray) -> list[Ambiguity]:
    """The body's ambiguity records (module docstring), each reading in the frame of the moving body ``owner``
    (``R``, ``p``: the body's frame there); empty where every reader takes it as MuJoCo does."""
    def read(name: str, who: str, i: Inertial) -> Reading:
        return Reading(name, who, i.transformed(R, p))

    mujoco = body.compiled
    out = []
    if body.without_geoms:
        out.append(Ambiguity(AmbiguityKind.INERTIAL_WITHOUT_GEOMS, link, owner, (
            read("the <inertial> kept (no geom to take one from)", "MuJoCo's compiler", mujoco),
            read("massless (the <inertial> set aside)", "Pinocchio's, Drake's and Newton's MJCF parsers",
                 Inertial.zero()))))
    if not _same(body.bounded, body.found):
        out.append(Ambiguity(AmbiguityKind.BOUNDED, link, owner, (
            read("raised to the bound", "MuJoCo, Pinocchio, Newton", mujoco),
            read("the <inertial>'s values, not raised to the bound", "Drake's MJCF parser", body.found))))
    if not _same(body.compiled, body.bounded):
        out.append(Ambiguity(AmbiguityKind.BALANCED, link, owner, (
            read("balanced (principal moments set to their mean)", "MuJoCo, Newton", mujoco),
            read("the moments written, not balanced", "Pinocchio's MJCF parser", body.bounded))))
    return out


def _same(a: Inertial, b: Inertial) -> bool:
    return a.mass == b.mass and bool(np.array_equal(a.com, b.com)) and bool(np.array_equal(a.inertia, b.inertia))
