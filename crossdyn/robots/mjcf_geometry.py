"""MJCF frames and geom inertias: orientations from ``quat``/``axisangle``/``euler``/``xyaxes``/``zaxis``, and the
mass, centre of mass and inertia MuJoCo derives from a primitive geom (``inertiafromgeom``).

Orientation rules (MuJoCo's XML reference): ``quat`` is w x y z, normalised; ``axisangle`` is a (normalised) axis
and an angle in the compiler's unit; ``euler`` applies three rotations in the order ``eulerseq`` names, a lowercase
letter about the rotated (moving) axis — q ← q·r —, an uppercase one about the fixed axis — q ← r·q —;
``xyaxes`` gives x and y (y made orthogonal to x, both normalised; z = x × y); ``zaxis`` is the shortest rotation
taking (0, 0, 1) onto it.  At most one of them on an element.

Solid geoms of density ρ (``mass`` given: ρ = mass / volume), sizes as MuJoCo's ``size`` (half-lengths, radii),
inertia about the centre in the geom frame (z the axis of symmetry):

* sphere r: V = 4/3 π r³, I = 2/5 m r² on every axis;
* box a b c: V = 8abc, I_x = m (b² + c²)/3, …;
* ellipsoid a b c: V = 4/3 π abc, I_x = m (b² + c²)/5, …;
* cylinder r, half-length h: V = 2π r² h, I_z = m r²/2, I_x = m (3r² + 4h²)/12;
* capsule r, h: a cylinder (mass m_c) and two hemispheres (together m_s = ρ 4/3 π r³, each centred 3r/8 beyond
  the cylinder's end): I_z = m_c r²/2 + 2/5 m_s r², I_x = m_c (3r² + 4h²)/12 + m_s (83/320 r² + (h + 3r/8)²).

``fromto`` (capsule, cylinder, box, ellipsoid) places the geom at the segment's midpoint, its z axis along the
segment, the half-length |to − from|/2 in place of the size's last entry; a box's or an ellipsoid's two other
half-sizes are both ``size[0]`` (MuJoCo 4.0 ignores ``size[1]`` there, measured in the tests).
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from crossdyn.robots.mjcf_xml import Compiler, Document, numbers
from crossdyn.robots.model import Inertial

ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a·b of quaternions (w, x, y, z)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_matrix(q: np.ndarray) -> np.ndarray:
    """The rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def axis_quat(axis: np.ndarray, angle: float) -> np.ndarray:
    """The quaternion of a rotation by ``angle`` about the unit ``axis``."""
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * np.asarray(axis, dtype=float)])


def z_quat(v: np.ndarray) -> np.ndarray:
    """The shortest rotation taking (0, 0, 1) onto the unit vector v (a half turn about x when v = −z)."""
    axis = np.cross([0.0, 0.0, 1.0], v)
    s = float(np.linalg.norm(axis))
    if s < 1e-10:
        axis, s = np.array([1.0, 0.0, 0.0]), 0.0
    else:
        axis = axis / s
    return axis_quat(axis, math.atan2(s, float(v[2])))


def _unit(doc: Document, el: ET.Element, attr: str, v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise doc.error(el, "zero vector: no direction", attr)
    return v / n


def _euler(seq: str, angles: list[float]) -> np.ndarray:
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for axis_name, angle in zip(seq, angles, strict=True):
        axis = np.eye(3)["xyz".index(axis_name.lower())]
        r = axis_quat(axis, angle)
        q = quat_mul(q, r) if axis_name.islower() else quat_mul(r, q)
    return q


def _xyaxes(doc: Document, el: ET.Element, v: list[float]) -> np.ndarray:
    x = _unit(doc, el, "xyaxes", np.array(v[:3]))
    y = np.array(v[3:]) - float(x @ np.array(v[3:])) * x
    y = _unit(doc, el, "xyaxes", y)
    R = np.column_stack([x, y, np.cross(x, y)])
    return matrix_quat(R)


def matrix_quat(R: np.ndarray) -> np.ndarray:
    """A unit quaternion (w ≥ 0) of the rotation matrix R (Shepperd's method)."""
    t = float(np.trace(R))
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = np.array([s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s])
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = np.zeros(4)
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = s / 4
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q = q / np.linalg.norm(q)
    return -q if q[0] < 0 else q


def orientation(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler) -> np.ndarray:
    """The rotation matrix of ``el``'s orientation (attributes ``a``, defaults applied), identity when none."""
    given = [k for k in ORIENTATIONS if k in a]
    if len(given) > 1:
        raise doc.error(el, f"more than one orientation ({', '.join(given)}): MuJoCo takes one", given[1])
    if not given:
        return np.eye(3)
    key = given[0]
    unit = math.pi / 180 if c.degrees else 1.0
    counts = {"quat": 4, "axisangle": 4, "euler": 3, "xyaxes": 6, "zaxis": 3}
    v = numbers(doc, el, key, counts[key], attrs=a)
    assert v is not None
    if key == "quat":
        q = _unit(doc, el, key, np.array(v))
    elif key == "axisangle":
        q = axis_quat(_unit(doc, el, key, np.array(v[:3])), v[3] * unit)
    elif key == "euler":
        q = _euler(c.eulerseq, [x * unit for x in v])
    elif key == "xyaxes":
        q = _xyaxes(doc, el, v)
    else:
        q = z_quat(_unit(doc, el, key, np.array(v)))
    return quat_matrix(q / np.linalg.norm(q))


def pose(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler) -> np.ndarray:
    """The 4×4 pose from ``pos`` and the orientation attributes."""
    T = np.eye(4)
    T[:3, :3] = orientation(doc, el, a, c)
    pos = numbers(doc, el, "pos", 3, attrs=a)
    if pos is not None:
        T[:3, 3] = pos
    return T


def _shape(kind: str, s: list[float]) -> tuple[float, np.ndarray]:
    """Volume and inertia per unit mass (diagonal, geom frame) of a primitive geom with sizes ``s``."""
    if kind == "sphere":
        r = s[0]
        return 4 / 3 * math.pi * r ** 3, np.full(3, 0.4 * r * r)
    if kind in ("box", "ellipsoid"):
        a, b, cc = s[:3]
        sq = np.array([b * b + cc * cc, a * a + cc * cc, a * a + b * b])
        if kind == "box":
            return 8 * a * b * cc, sq / 3
        return 4 / 3 * math.pi * a * b * cc, sq / 5
    r, h = s[0], s[1]
    v_cyl = 2 * math.pi * r * r * h
    if kind == "cylinder":
        return v_cyl, np.array([(3 * r * r + 4 * h * h) / 12] * 2 + [r * r / 2])
    v_sph = 4 / 3 * math.pi * r ** 3
    ix = v_cyl * (3 * r * r + 4 * h * h) / 12 + v_sph * (83 / 320 * r * r + (h + 3 * r / 8) ** 2)
    iz = v_cyl * r * r / 2 + v_sph * 0.4 * r * r
    v = v_cyl + v_sph
    return v, np.array([ix, ix, iz]) / v


SIZES = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3, "ellipsoid": 3}


def _fromto(doc: Document, el: ET.Element, a: dict[str, str], kind: str, size: list[float]):
    ft = numbers(doc, el, "fromto", 6, attrs=a)
    assert ft is not None
    p0, p1 = np.array(ft[:3]), np.array(ft[3:])
    d = p1 - p0
    T = np.eye(4)
    T[:3, :3] = quat_matrix(z_quat(_unit(doc, el, "fromto", d)))
    T[:3, 3] = (p0 + p1) / 2
    half = float(np.linalg.norm(d)) / 2
    if kind in ("capsule", "cylinder"):
        return T, [size[0], half]
    return T, [size[0], size[0], half]


def geom_inertial(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler) -> Inertial:
    """The inertial of a primitive geom (attributes ``a``) in its body's frame (module docstring)."""
    kind = a.get("type", "sphere")
    size = numbers(doc, el, "size", attrs=a) or []
    need = 1 if "fromto" in a else SIZES[kind]
    if len(size) < need or any(s < 0 for s in size[:need]):
        raise doc.error(el, f"a {kind} needs {need} non-negative size value(s)", "size")
    if a.get("shellinertia", "false") == "true":
        raise doc.error(el, "unsupported: inertia of a shell", "shellinertia")
    if "fromto" in a:
        if kind == "sphere":
            raise doc.error(el, "a sphere cannot have fromto", "fromto")
        T, size = _fromto(doc, el, a, kind, size)
    else:
        T = pose(doc, el, a, c)
    volume, per_mass = _shape(kind, size)
    mass_attr = numbers(doc, el, "mass", 1, attrs=a)
    density = numbers(doc, el, "density", 1, attrs=a)
    if mass_attr is not None:
        if mass_attr[0] < 0:
            raise doc.error(el, "negative mass", "mass")
        mass = mass_attr[0]
    else:
        rho = 1000.0 if density is None else density[0]
        if rho < 0:
            raise doc.error(el, "negative density", "density")
        mass = rho * volume
    R = T[:3, :3]
    return Inertial(mass, T[:3, 3], R @ np.diag(mass * per_mass) @ R.T)
