"""A robot file's rigid-body model as crossdyn reads it: one spatial description for URDF and MJCF alike.

A :class:`RobotModel` is a fixed-base kinematic tree of moving bodies, one per actuated degree of freedom.  Body
``i`` is moved by joint ``i`` and hangs from body ``parents[i]`` (``-1``: the fixed base, welded to the world).
Bodies are in topological order (a parent before its children), so recursions run in index order.

Frames and conventions (SI units, radians; ``R`` rotation matrices, ``p`` vectors, right-handed):

* ``Joint.origin`` is the pose of body ``i``'s frame in its parent's frame at q = 0, as a 4×4 homogeneous transform
  ``[[R, p], [0, 1]]`` (URDF: the joint's ``<origin>``; MJCF: the body's ``pos``/``quat``).
* The joint moves body ``i`` about (revolute) or along (prismatic) ``Joint.axis``, a unit vector in body ``i``'s
  frame, through the point ``Joint.anchor`` of that frame (URDF: always 0; MJCF: the joint's ``pos``).  The pose of
  body i in its parent at coordinate q is

      X_i(q) = origin · T(anchor) · Rot(axis, q) · T(−anchor)     (revolute, continuous)
      X_i(q) = origin · T(q · axis)                               (prismatic)

* :class:`Inertial` gives the body's mass m, its centre of mass c in the body frame and its 3×3 rotational inertia
  I_c about that centre, expressed in the body frame.  Bodies welded to a moving body by fixed joints (URDF
  ``fixed``, MJCF bodies without joints) are merged into it (parallel-axis theorem) and listed in ``Body.merged``.
* Gravity is a vector in the world (= base) frame, m/s².  URDF has none: the readers use (0, 0, −9.81), MuJoCo's,
  Pinocchio's, PyBullet's, Drake's and DART's common default, and say so in a :class:`Note`.

What the file says beyond the rigid bodies is kept per joint (limits, effort, velocity, damping, Coulomb friction,
armature, gear) so that ``audit`` can compare it between files; crossdyn's reference dynamics use the rigid bodies
and, where asked, the armature.

The readers (:mod:`crossdyn.robots.urdf`, :mod:`crossdyn.robots.mjcf`) raise :class:`crossdyn.errors.InputError`
naming the file, the element and the value for anything they cannot represent; what is questionable but readable
(a missing mesh, a massless body with an inertia, an inertia off the triangle inequality) becomes a :class:`Note`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from crossdyn.robots.format_enum import Format  # noqa: F401  (imported from here too)


class JointType(enum.Enum):
    """The joint types crossdyn's spatial model represents (one degree of freedom each)."""

    REVOLUTE = "revolute"
    CONTINUOUS = "continuous"
    """A revolute joint without position limits (URDF ``continuous``; an MJCF hinge with ``limited="false"``)."""
    PRISMATIC = "prismatic"

    @property
    def rotates(self) -> bool:
        """True for revolute and continuous joints (q in radians), False for prismatic (q in metres)."""
        return self is not JointType.PRISMATIC


class Severity(enum.Enum):
    """How much a :class:`Note` matters to a comparison."""

    INFO = "info"
    """Nothing changes the dynamics (a mesh file not found, a visual element ignored)."""
    AMBIGUOUS = "ambiguous"
    """The file can be read in more than one way and engines are known to differ (a massless body with an inertia,
    an inertia derived from geometry): engine-reading differences there are explained, not judged."""
    SUSPECT = "suspect"
    """Physically questionable but representable (an inertia off the triangle inequality, a placeholder inertia)."""


@dataclass(frozen=True)
class Note:
    """Something a reader found worth saying about the file: where (element and name), what, and how much it
    matters."""

    where: str
    """The element, e.g. ``"link 'panda_link8'"`` or ``"body 'wrist_1_link' <inertial>"``."""
    message: str
    severity: Severity = Severity.INFO

    def as_dict(self) -> dict:
        return {"where": self.where, "message": self.message, "severity": self.severity.value}


def _frozen(a, shape: tuple[int, ...]) -> np.ndarray:
    out = np.array(a, dtype=float).reshape(shape)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class Inertial:
    """Mass m (kg), centre of mass ``com`` (m, body frame) and inertia ``inertia`` (kg m², 3×3, about the centre of
    mass, body-frame axes)."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "mass", float(self.mass))
        object.__setattr__(self, "com", _frozen(self.com, (3,)))
        object.__setattr__(self, "inertia", _frozen(self.inertia, (3, 3)))

    @staticmethod
    def zero() -> Inertial:
        return Inertial(0.0, np.zeros(3), np.zeros((3, 3)))

    def about_origin(self) -> np.ndarray:
        """The 3×3 inertia about the body frame's origin: I_o = I_c + m (‖c‖² 1 − c cᵀ)."""
        c = self.com
        return self.inertia + self.mass * (float(c @ c) * np.eye(3) - np.outer(c, c))

    def transformed(self, R: np.ndarray, p: np.ndarray) -> Inertial:
        """The same body seen from a frame in which this body's frame has orientation R and origin p:
        c' = R c + p, I' = R I_c Rᵀ."""
        return Inertial(self.mass, R @ self.com + p, R @ self.inertia @ R.T)

    def plus(self, other: Inertial) -> Inertial:
        """Two rigid bodies welded together (both in this frame): masses add, the centre of mass is the weighted
        mean, inertias add about it (parallel-axis theorem).  Two massless bodies keep the sum of their inertias
        about this frame's origin."""
        m = self.mass + other.mass
        if m <= 0.0:
            return Inertial(0.0, np.zeros(3), self.inertia + other.inertia)
        c = (self.mass * self.com + other.mass * other.com) / m

        def shifted(b: Inertial) -> np.ndarray:
            d = b.com - c
            return b.inertia + b.mass * (float(d @ d) * np.eye(3) - np.outer(d, d))

        return Inertial(m, c, shifted(self) + shifted(other))

    def as_dict(self) -> dict:
        return {"mass": self.mass, "com": self.com.tolist(), "inertia": self.inertia.tolist()}


@dataclass(frozen=True, eq=False)
class Joint:
    """The joint that moves a body, and what the file says about it (see the module docstring for the frames)."""

    name: str
    type: JointType
    origin: np.ndarray
    """4×4: body frame in the parent's frame at q = 0."""
    axis: np.ndarray
    """Unit 3-vector in the body frame."""
    anchor: np.ndarray = field(default_factory=lambda: np.zeros(3))
    """Point of the body frame on the joint axis (URDF: 0; MJCF: the joint's ``pos``)."""
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    """Largest magnitude of τ (N m or N) the file allows, or None."""
    velocity: float | None = None
    damping: float = 0.0
    """Viscous joint damping b (N m s/rad or N s/m): τ_damping = −b q̇."""
    friction: float = 0.0
    """Coulomb (dry) joint friction f_c (N m or N): URDF ``<dynamics friction>``, MJCF ``frictionloss``."""
    armature: float = 0.0
    """Reflected rotor inertia added to M's diagonal (kg m² or kg): MJCF ``armature``; URDF has none."""
    gear: float = 1.0
    """Transmission ratio where the format has one (MJCF actuator ``gear``; URDF ``<transmission>`` reduction)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "origin", _frozen(self.origin, (4, 4)))
        object.__setattr__(self, "axis", _frozen(self.axis, (3,)))
        object.__setattr__(self, "anchor", _frozen(self.anchor, (3,)))

    def as_dict(self) -> dict:
        return {"name": self.name, "type": self.type.value, "origin": self.origin.tolist(),
                "axis": self.axis.tolist(), "anchor": self.anchor.tolist(), "lower": self.lower,
                "upper": self.upper, "effort": self.effort, "velocity": self.velocity, "damping": self.damping,
                "friction": self.friction, "armature": self.armature, "gear": self.gear}


@dataclass(frozen=True, eq=False)
class Body:
    """A moving body: its name in the file, its inertial (fixed children merged in) and what was merged."""

    name: str
    inertial: Inertial
    merged: tuple[str, ...] = ()
    """Names of bodies welded to this one by fixed joints, whose inertials are included in ``inertial``."""

    def as_dict(self) -> dict:
        return {"name": self.name, **self.inertial.as_dict(), "merged": list(self.merged)}


class AmbiguityKind(enum.Enum):
    """What makes a link's inertial ambiguous (the readings: :mod:`crossdyn.robots.ambiguity`)."""

    MASSLESS_INERTIA = "mass 0 with an inertia"
    OFF_TRIANGLE = "inertia off the triangle inequality"
    BALANCED = "inertia off the triangle inequality, balanced by the compiler's balanceinertia"
    """MJCF: MuJoCo's compiler (``balanceinertia="true"``) sets the principal moments to their mean."""
    BOUNDED = "mass or inertia below the compiler's boundmass/boundinertia"
    """MJCF: MuJoCo's compiler raises the mass and each principal moment to the bound."""
    INERTIAL_WITHOUT_GEOMS = 'an <inertial> and no geom under inertiafromgeom="true"'
    """MJCF: the compiler is told to take every body's inertia from its geoms, and this body has an
    ``<inertial>`` but no geom."""


@dataclass(frozen=True, eq=False)
class Reading:
    """One way to read an ambiguous link: its name, who reads it so, and the link's inertial so read (in the frame
    of the moving body the link belongs to)."""

    name: str
    who: str
    inertial: Inertial


@dataclass(frozen=True, eq=False)
class Ambiguity:
    """One ambiguous link: the kind, the link and the moving body it belongs to, and the readings (the first is
    the file as written, crossdyn's reading)."""

    kind: AmbiguityKind
    link: str
    body: str
    readings: tuple[Reading, ...]

    def words(self) -> str:
        """"link 'panda_link8' (welded to 'panda_link7'): mass 0 with an inertia (kept by …; dropped by …; …)"."""
        where = f"link '{self.link}'" + (f" (welded to '{self.body}')" if self.body != self.link else "")
        readings = "; ".join(f"{r.name}: {r.who}" for r in self.readings)
        return f"{where}: {self.kind.value}, which engines read differently ({readings})"

    def as_dict(self) -> dict:
        return {"kind": self.kind.value, "link": self.link, "body": self.body,
                "readings": [{"name": r.name, "who": r.who, **r.inertial.as_dict()} for r in self.readings]}


@dataclass(frozen=True, eq=False)
class RobotModel:
    """A fixed-base tree of moving bodies read from a robot file (see the module docstring)."""

    name: str
    source: str
    """The file it was read from (as given)."""
    format: Format
    base: str
    """The name of the fixed base body (URDF root link; MJCF ``worldbody`` or the body the chain hangs from)."""
    bodies: tuple[Body, ...]
    joints: tuple[Joint, ...]
    parents: tuple[int, ...]
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    notes: tuple[Note, ...] = ()
    removed: tuple[str, ...] = ()
    """What the reader took out for the comparison (the file's actuators, contacts, keyframes, …), in words."""
    ambiguities: tuple[Ambiguity, ...] = ()
    """The links the file writes so that engines read them differently, with the readings known
    (:mod:`crossdyn.robots.ambiguity`): ``compare`` and ``audit`` judge an engine that holds one of them
    INCONCLUSIVE, naming it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "gravity", _frozen(self.gravity, (3,)))
        n = len(self.bodies)
        if len(self.joints) != n or len(self.parents) != n:
            raise ValueError(f"RobotModel: {n} bodies, {len(self.joints)} joints, {len(self.parents)} parents")
        for i, p in enumerate(self.parents):
            if not -1 <= p < i:
                raise ValueError(f"RobotModel: body {i} has parent {p}: bodies must be in topological order")

    @property
    def n(self) -> int:
        """Number of degrees of freedom (= moving bodies = joints)."""
        return len(self.joints)

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(j.name for j in self.joints)

    @property
    def body_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bodies)

    @property
    def is_chain(self) -> bool:
        """True for a serial chain (each body's parent is the one before it)."""
        return all(p == i - 1 for i, p in enumerate(self.parents))

    def lower(self) -> np.ndarray:
        """Per joint lower limit (−inf where none)."""
        return np.array([-np.inf if j.lower is None else j.lower for j in self.joints])

    def upper(self) -> np.ndarray:
        """Per joint upper limit (+inf where none)."""
        return np.array([np.inf if j.upper is None else j.upper for j in self.joints])

    def armature(self) -> np.ndarray:
        return np.array([j.armature for j in self.joints])

    def as_dict(self) -> dict:
        return {"name": self.name, "source": self.source, "format": self.format.value, "base": self.base,
                "gravity": self.gravity.tolist(), "parents": list(self.parents),
                "bodies": [b.as_dict() for b in self.bodies], "joints": [j.as_dict() for j in self.joints],
                "notes": [n.as_dict() for n in self.notes], "removed": list(self.removed),
                **({"ambiguities": [a.as_dict() for a in self.ambiguities]} if self.ambiguities else {})}
