"""MJCF joints and ``<inertial>`` elements as crossdyn's model reads them.

Joint rules (MuJoCo's XML reference, checked against MuJoCo 4.0 in ``tests/test_robot_mjcf.py``): ``type`` hinge
(default) or slide; ``axis`` (default 0 0 1) normalised, a zero axis refused; ``pos`` the anchor in the body frame;
``limited`` true/false, or auto (default): with ``autolimits`` (default true) limited iff ``range`` is given, without
it a ``range`` needs an explicit ``limited``; a hinge's range (and ``ref``) in the compiler's angle unit.  An
unlimited hinge is CONTINUOUS.  ``ref`` (the coordinate at which the body has the pose the file writes) is folded
into the joint's origin, origin' = origin·T(anchor)·Rot(axis, −ref)·T(−anchor) (slide: origin·T(−ref·axis)), so that
the model's q is MuJoCo's ``qpos``.  ``actuatorfrcrange`` (limited like ``range`` with ``actuatorfrclimited``) is the
effort: the larger of |lo|, |hi|.  A spring (``stiffness`` ≠ 0, ``springdamper``) cannot be represented: InputError.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from crossdyn.robots.mjcf_geometry import axis_quat, orientation, quat_matrix
from crossdyn.robots.mjcf_xml import Compiler, Document, numbers
from crossdyn.robots.model import Inertial, JointType


@dataclass(frozen=True)
class JointRead:
    """One MJCF joint: what :class:`crossdyn.robots.model.Joint` takes besides the origin, and its ``ref``."""

    name: str
    type: JointType
    axis: np.ndarray
    anchor: np.ndarray
    ref: float
    lower: float | None
    upper: float | None
    effort: float | None
    damping: float
    friction: float
    armature: float

    def fold_ref(self, origin: np.ndarray) -> np.ndarray:
        """The pose at q = 0 from the pose at q = ref (module docstring)."""
        if self.ref == 0.0:
            return origin
        move = np.eye(4)
        if self.type is JointType.PRISMATIC:
            move[:3, 3] = -self.ref * self.axis
            return origin @ move
        R = quat_matrix(axis_quat(self.axis, -self.ref))
        move[:3, :3] = R
        move[:3, 3] = self.anchor - R @ self.anchor
        return origin @ move


def _one(doc: Document, el: ET.Element, a: dict[str, str], attr: str, default: float = 0.0, *,
         nonnegative: bool = True) -> float:
    v = numbers(doc, el, attr, 1, attrs=a)
    if v is None:
        return default
    if nonnegative and v[0] < 0:
        raise doc.error(el, "must be >= 0", attr)
    return v[0]


def _limited(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler, flag: str, attr: str) -> bool:
    mode = a.get(flag, "auto")
    if mode not in ("auto", "true", "false"):
        raise doc.error(el, "must be auto, true or false", flag)
    if mode == "auto":
        if attr in a and not c.autolimits:
            raise doc.error(el, f"has {attr} but {flag}=\"auto\" while the compiler's autolimits is false "
                                "(MuJoCo refuses it too)", attr)
        return attr in a
    return mode == "true"


def _range(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler, hinge: bool):
    if not _limited(doc, el, a, c, "limited", "range"):
        return None, None
    r = numbers(doc, el, "range", 2, attrs=a)
    if r is None:
        raise doc.error(el, "limited=\"true\" without a range", "limited")
    if not r[0] < r[1]:
        raise doc.error(el, "a limited joint's range must have lower < upper", "range")
    unit = math.pi / 180 if hinge and c.degrees else 1.0
    return r[0] * unit, r[1] * unit


def _effort(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler) -> float | None:
    if not _limited(doc, el, a, c, "actuatorfrclimited", "actuatorfrcrange"):
        return None
    r = numbers(doc, el, "actuatorfrcrange", 2, attrs=a)
    if r is None:
        raise doc.error(el, "actuatorfrclimited=\"true\" without actuatorfrcrange", "actuatorfrclimited")
    if not r[0] <= 0 <= r[1]:
        raise doc.error(el, "must satisfy lower <= 0 <= upper", "actuatorfrcrange")
    return max(-r[0], r[1])


def read_joint(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler) -> JointRead:
    """A ``<joint>`` (attributes ``a``, defaults applied) as :class:`JointRead`; InputError for a floating base,
    a ball joint, a zero axis, a spring, a missing name (module docstring)."""
    if el.tag == "freejoint":
        raise doc.error(el, "unsupported: a free joint makes a floating base (crossdyn reads fixed-base robots)")
    kind = a.get("type", "hinge")
    if kind == "free":
        raise doc.error(el, "unsupported: a free joint makes a floating base (crossdyn reads fixed-base robots)",
                        "type")
    if kind not in ("hinge", "slide"):
        raise doc.error(el, "unsupported joint type: crossdyn reads hinge and slide joints (one degree of "
                            "freedom each)", "type")
    if not el.get("name"):
        raise doc.error(el, "a joint needs a name (crossdyn matches joints by name)")
    axis = np.array(numbers(doc, el, "axis", 3, attrs=a) or [0.0, 0.0, 1.0])
    if float(np.linalg.norm(axis)) < 1e-12:
        raise doc.error(el, "zero axis", "axis")
    if _one(doc, el, a, "stiffness", nonnegative=False) != 0.0:
        raise doc.error(el, "unsupported: a joint spring (stiffness) is not part of crossdyn's model", "stiffness")
    if any(v != 0 for v in numbers(doc, el, "springdamper", 2, attrs=a) or []):
        raise doc.error(el, "unsupported: a joint spring (springdamper) is not part of crossdyn's model",
                        "springdamper")
    hinge = kind == "hinge"
    lower, upper = _range(doc, el, a, c, hinge)
    jtype = JointType.PRISMATIC if not hinge else (JointType.REVOLUTE if lower is not None else
                                                   JointType.CONTINUOUS)
    unit = math.pi / 180 if hinge and c.degrees else 1.0
    return JointRead(name=el.get("name", ""), type=jtype, axis=axis / np.linalg.norm(axis),
                     anchor=np.array(numbers(doc, el, "pos", 3, attrs=a) or [0.0, 0.0, 0.0]),
                     ref=_one(doc, el, a, "ref", nonnegative=False) * unit, lower=lower, upper=upper,
                     effort=_effort(doc, el, a, c), damping=_one(doc, el, a, "damping"),
                     friction=_one(doc, el, a, "frictionloss"), armature=_one(doc, el, a, "armature"))


def read_inertial(doc: Document, el: ET.Element, c: Compiler) -> Inertial:
    """An ``<inertial>``: mass, ``pos`` (the centre of mass), ``diaginertia`` in the frame the orientation
    attributes give (I = R diag Rᵀ) or ``fullinertia`` (ixx iyy izz ixy ixz iyz, body-frame axes)."""
    a = el.attrib
    mass = numbers(doc, el, "mass", 1)
    if mass is None:
        raise doc.error(el, "needs a mass attribute")
    if mass[0] < 0:
        raise doc.error(el, "negative mass", "mass")
    pos = numbers(doc, el, "pos", 3) or [0.0, 0.0, 0.0]
    if "fullinertia" in a and "diaginertia" in a:
        raise doc.error(el, "both diaginertia and fullinertia: MuJoCo takes one", "fullinertia")
    turned = [k for k in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if k in a]
    if "fullinertia" in a and turned:
        raise doc.error(el, f"fullinertia with an orientation ({turned[0]}): MuJoCo refuses it too", "fullinertia")
    R = orientation(doc, el, a, c)
    if "fullinertia" in a:
        xx, yy, zz, xy, xz, yz = numbers(doc, el, "fullinertia", 6) or []
        inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    elif "diaginertia" in a:
        inertia = np.diag(numbers(doc, el, "diaginertia", 3) or [])
    else:
        raise doc.error(el, "needs diaginertia or fullinertia")
    return Inertial(mass[0], np.array(pos), R @ inertia @ R.T)


def bounded(inertial: Inertial, c: Compiler) -> Inertial:
    """``boundmass``/``boundinertia``: MuJoCo raises a body's mass and each principal moment to at least these."""
    if c.boundmass <= 0 and c.boundinertia <= 0:
        return inertial
    w, V = np.linalg.eigh(inertial.inertia)
    w = np.maximum(w, c.boundinertia)
    return Inertial(max(inertial.mass, c.boundmass), inertial.com, V @ np.diag(w) @ V.T)
