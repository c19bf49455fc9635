"""Spatial arm specifications: serial chains of revolute and prismatic joints with arbitrary axes (issue 27).

A :class:`SpatialArmSpec` is an immutable serial chain: joint i (revolute or prismatic) moves link i relative to
link i − 1 (link 0 is the fixed base, whose frame is the world frame).  The fixed transform of each joint is given
in one of three conventions (:class:`Convention`), stated here once and printed by ``crossdyn info``:

``dh-standard`` (distal, Spong–Hutchinson–Vidyasagar)
    Row i = (a_i, α_i, d_i, θ_i), Spong's column order.  Frame i sits at the distal end of link i and
    T_{i−1,i} = Rz(θ_i) · Tz(d_i) · Tx(a_i) · Rx(α_i); joint i moves about/along z_{i−1}.
``dh-modified`` (proximal, Craig)
    Row i = (α_{i−1}, a_{i−1}, d_i, θ_i), Craig's column order.  Frame i sits on joint i's axis and
    T_{i−1,i} = Rx(α_{i−1}) · Tx(a_{i−1}) · Rz(θ_i) · Tz(d_i); joint i moves about/along z_i.
``origin`` (explicit, URDF's)
    Joint i has an origin (xyz, m; rpy, rad: R = Rz(yaw) Ry(pitch) Rx(roll)), the pose of frame i in frame i − 1 at
    q = 0, and a unit axis in frame i; X_{i−1,i}(q) = origin · Rot(axis, q) (revolute) or origin · T(q axis).

In both DH conventions the joint variable adds to θ_i (revolute: θ_i + q_i) or to d_i (prismatic: d_i + q_i): the
table's θ_i (d_i) is the offset at q = 0.  Link i's mass m_i, centre of mass c_i (m, a 3-vector) and inertia I_i
(kg m², 3×3 about the centre of mass, axes of the frame) are given in frame i: the DH frame i of the table's
convention, or the joint's frame for ``origin``.  Gravity is a vector in frame 0 (default (0, 0, −9.81) m/s²).

:meth:`SpatialArmSpec.to_robot_model` gives crossdyn's spatial model (:class:`crossdyn.robots.model.RobotModel`)
with every joint anchor at the body frame's origin, so that a URDF (which has no anchor) holds it exactly: body i's
frame is the frame in which joint i moves about/along +z at the origin.  For ``dh-modified`` and ``origin`` that is
frame i itself.  For ``dh-standard`` it is J_i = frame_{i−1} · Rz(θ_i) · Tz(d_i) (on joint i's axis z_{i−1}),
so body i's origin in body i − 1 is Tx(a_{i−1}) · Rx(α_{i−1}) · Rz(θ_i) · Tz(d_i), and DH frame i is
J_i · Tx(a_i) · Rx(α_i): link i's inertial is carried into J_i by that transform (exact up to rounding), and
:meth:`SpatialArmSpec.frame_offsets` gives it to whoever wants the DH frames back.  Rz(θ + q) · Tz(d) =
Rz(θ) · Tz(d) · Rz(q) and Tz(d + q) = Tz(d) · Tz(q) make this exact.

Bad input raises :class:`crossdyn.models.spec.SpecError` naming the joint or link (1-based), the field and the
value: an unknown joint type, a zero-length axis, a DH row of the wrong length, an inertia that is not symmetric
positive definite or violates the triangle inequality (no rigid body has it; MuJoCo refuses it), a mass ≤ 0.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crossdyn.models.spec import SpecError, _number

if TYPE_CHECKING:  # numpy is imported lazily (in the functions): `crossdyn arms` and `--help` stay fast
    import numpy as np

    from crossdyn.robots.model import Format, RobotModel

Vec3 = tuple[float, float, float]
INERTIA_ORDER = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
DEFAULT_SPATIAL_GRAVITY: Vec3 = (0.0, 0.0, -9.81)
SYMMETRY_TOL = 1e-9
"""Relative asymmetry |I − Iᵀ| / max|I| above which a 3×3 inertia is refused (typing precision, not rounding)."""
TRIANGLE_TOL = 1e-12
"""Relative slack of the triangle inequality I_a + I_b ≥ I_c on the principal moments (eigenvalue rounding)."""


class JointKind(enum.Enum):
    """A spatial joint: one degree of freedom about (revolute, rad) or along (prismatic, m) its axis."""

    REVOLUTE = "revolute"
    PRISMATIC = "prismatic"


class Convention(enum.Enum):
    """How each joint's fixed transform is given (see the module docstring for the equations)."""

    DH_STANDARD = "dh-standard"
    DH_MODIFIED = "dh-modified"
    ORIGIN = "origin"

    @property
    def columns(self) -> tuple[str, str, str, str]:
        """The DH row's column order (the textbook's): Spong's (a, alpha, d, theta), Craig's (alpha, a, d, theta)."""
        return ("alpha", "a", "d", "theta") if self is Convention.DH_MODIFIED else ("a", "alpha", "d", "theta")

    @property
    def equation(self) -> str:
        return {Convention.DH_STANDARD: "T_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i) (standard/distal DH, "
                                        "Spong-Hutchinson-Vidyasagar; joint i moves about/along z_{i-1})",
                Convention.DH_MODIFIED: "T_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i) (modified/proximal "
                                        "DH, Craig; joint i moves about/along z_i)",
                Convention.ORIGIN: "X_i(q) = T(xyz) R(rpy) Rot(axis, q) or T(xyz) R(rpy) T(q axis), R(rpy) = "
                                   "Rz(yaw) Ry(pitch) Rx(roll) (explicit origin and axis, URDF's)"}[self]


# --- homogeneous transforms (pure) -------------------------------------------------------------------------------

def rot_x(a: float) -> np.ndarray:
    import numpy as np

    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0, 0.0], [0.0, c, -s, 0.0], [0.0, s, c, 0.0], [0.0, 0.0, 0.0, 1.0]])


def rot_z(a: float) -> np.ndarray:
    import numpy as np

    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0, 0.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def translation(p) -> np.ndarray:
    import numpy as np

    T = np.eye(4)
    T[:3, 3] = p
    return T


def rpy_matrix(rpy) -> np.ndarray:
    """R = Rz(yaw) Ry(pitch) Rx(roll) (URDF's fixed-axis roll, pitch, yaw), 3×3."""
    import numpy as np

    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def matrix_rpy(R: np.ndarray) -> Vec3:
    """(roll, pitch, yaw) with rpy_matrix(rpy) = R (the URDF writer's own conversion)."""
    from crossdyn.robots.write_urdf import matrix_rpy as rpy

    return rpy(R)


def dh_standard(a: float, alpha: float, d: float, theta: float) -> np.ndarray:
    """Rz(θ) Tz(d) Tx(a) Rx(α)."""
    return rot_z(theta) @ translation((0.0, 0.0, d)) @ translation((a, 0.0, 0.0)) @ rot_x(alpha)


def dh_modified(alpha: float, a: float, d: float, theta: float) -> np.ndarray:
    """Rx(α) Tx(a) Rz(θ) Tz(d)."""
    return rot_x(alpha) @ translation((a, 0.0, 0.0)) @ rot_z(theta) @ translation((0.0, 0.0, d))


def axis_angle(axis, q: float) -> np.ndarray:
    """4×4 rotation by q about the unit ``axis`` (Rodrigues)."""
    import numpy as np

    u = np.asarray(axis, dtype=float)
    K = np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])
    T = np.eye(4)
    T[:3, :3] = np.eye(3) + math.sin(q) * K + (1.0 - math.cos(q)) * (K @ K)
    return T


# --- validation helpers ------------------------------------------------------------------------------------------



def _vector(value: Any, n: int, where: str, what: str) -> tuple[float, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != n:
        count = len(value) if hasattr(value, "__len__") and not isinstance(value, (str, bytes)) else "not a list"
        raise SpecError(f"{where}: must be {n} numbers ({what}), got {value!r} ({count})", where, value)
    return tuple(_number(v, f"{where}[{k}]") for k, v in enumerate(value, start=1))


def inertia_matrix(six) -> np.ndarray:
    """3×3 symmetric matrix from (ixx, ixy, ixz, iyy, iyz, izz)."""
    import numpy as np

    xx, xy, xz, yy, yz, zz = (float(v) for v in six)
    return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def _shown(value: Any) -> Any:
    """``value`` as the user would write it (nested lists of plain floats where it is numeric)."""
    import numpy as np

    try:
        return np.asarray(value, dtype=float).tolist()
    except (TypeError, ValueError):
        return value


def inertia_six(value: Any, where: str) -> tuple[float, ...]:
    """An inertia given as 6 numbers (ixx ixy ixz iyy iyz izz) or a 3×3 list, checked: symmetric (relative
    asymmetry ≤ SYMMETRY_TOL), positive definite, principal moments obeying the triangle inequality."""
    import numpy as np

    if isinstance(value, (list, tuple)) and len(value) == 3 and all(isinstance(r, (list, tuple)) for r in value):
        rows = [_vector(r, 3, f"{where}[{k}]", "a row of the 3x3 inertia") for k, r in enumerate(value, start=1)]
        I3 = np.array(rows)
        scale = float(np.max(np.abs(I3))) or 1.0
        asym = float(np.max(np.abs(I3 - I3.T)))
        if asym > SYMMETRY_TOL * scale:
            raise SpecError(f"{where}: the 3x3 inertia is not symmetric (|I - I^T| = {asym:.3g} kg m^2), got "
                            f"{value!r}", where, value)
        I3 = (I3 + I3.T) / 2
        six: tuple[float, ...] = (I3[0, 0], I3[0, 1], I3[0, 2], I3[1, 1], I3[1, 2], I3[2, 2])
    else:
        six = _vector(value, 6, where, "ixx, ixy, ixz, iyy, iyz, izz in kg m^2, or a 3x3 list")
    eig = np.linalg.eigvalsh(inertia_matrix(six))
    if eig[0] <= 0.0:
        raise SpecError(f"{where}: the inertia is not positive definite (principal moments "
                        f"{', '.join(f'{e:.6g}' for e in eig)} kg m^2), got {_shown(value)!r}", where, value)
    if eig[0] + eig[1] < eig[2] * (1.0 - TRIANGLE_TOL):
        raise SpecError(f"{where}: the principal moments {', '.join(f'{e:.6g}' for e in eig)} kg m^2 violate the "
                        f"triangle inequality I1 + I2 >= I3 (no rigid body has them), got {_shown(value)!r}", where, value)
    return tuple(float(v) for v in six)


# --- the spec -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SpatialJoint:
    """Joint i: its type, its fixed transform (``dh`` row in the arm's DH convention, or ``xyz``/``rpy``/``axis``
    for the ``origin`` convention) and what it carries: limits (rad or m), effort (N m or N), viscous damping
    (N m s/rad or N s/m), armature (kg m² or kg, added to M_ii)."""

    type: JointKind
    dh: tuple[float, float, float, float] | None = None
    xyz: Vec3 = (0.0, 0.0, 0.0)
    rpy: Vec3 = (0.0, 0.0, 0.0)
    axis: Vec3 = (0.0, 0.0, 1.0)
    name: str = ""
    limits: tuple[float, float] | None = None
    effort: float | None = None
    damping: float = 0.0
    armature: float = 0.0

    def __post_init__(self) -> None:
        if isinstance(self.type, str) and self.type in {k.value for k in JointKind}:
            object.__setattr__(self, "type", JointKind(self.type))  # "revolute" as well as JointKind.REVOLUTE

    def validate(self, where: str) -> None:
        if not isinstance(self.type, JointKind):
            raise SpecError(f"{where}.type: unknown joint type {self.type!r}; crossdyn knows "
                            f"{', '.join(k.value for k in JointKind)}", f"{where}.type", self.type)
        _vector(self.xyz, 3, f"{where}.xyz", "m")
        _vector(self.rpy, 3, f"{where}.rpy", "rad")
        u = _vector(self.axis, 3, f"{where}.axis", "a direction")
        if math.hypot(*u) < 1e-9:
            raise SpecError(f"{where}.axis: a {self.type.value} joint's axis must have a length > 0, got "
                            f"{list(self.axis)!r}", f"{where}.axis", self.axis)
        if self.limits is not None:
            lo, hi = _vector(self.limits, 2, f"{where}.limits", "lower, upper")
            if not lo < hi:
                raise SpecError(f"{where}.limits: lower must be < upper, got {list(self.limits)!r}",
                                f"{where}.limits", self.limits)
        if self.effort is not None and not _number(self.effort, f"{where}.effort") > 0:
            raise SpecError(f"{where}.effort: must be > 0, got {self.effort!r}", f"{where}.effort", self.effort)
        for key in ("damping", "armature"):
            if _number(getattr(self, key), f"{where}.{key}") < 0:
                raise SpecError(f"{where}.{key}: must be >= 0, got {getattr(self, key)!r}", f"{where}.{key}",
                                getattr(self, key))

    def normalized(self) -> SpatialJoint:
        """The same joint with every number a float and every vector a tuple (after :meth:`validate`)."""
        def floats(v):
            return None if v is None else tuple(float(x) for x in v)

        return SpatialJoint(self.type, floats(self.dh), floats(self.xyz), floats(self.rpy),  # type: ignore[arg-type]
                            floats(self.axis), str(self.name), floats(self.limits),  # type: ignore[arg-type]
                            None if self.effort is None else float(self.effort), float(self.damping),
                            float(self.armature))

    @property
    def unit_axis(self) -> np.ndarray:
        import numpy as np

        u = np.array(self.axis, dtype=float)
        return u / np.linalg.norm(u)


@dataclass(frozen=True)
class SpatialLink:
    """Link i: mass (kg), centre of mass (m, frame i) and inertia about the centre of mass (kg m², frame i's axes:
    ixx, ixy, ixz, iyy, iyz, izz)."""

    mass: float
    com: Vec3
    inertia: tuple[float, float, float, float, float, float]
    name: str = ""

    def validate(self, where: str) -> None:
        if _number(self.mass, f"{where}.mass") <= 0:
            raise SpecError(f"{where}.mass: must be > 0 kg, got {self.mass!r}", f"{where}.mass", self.mass)
        _vector(self.com, 3, f"{where}.com", "m, in the link's frame")
        inertia_six(self.inertia, f"{where}.inertia")

    def normalized(self, where: str) -> SpatialLink:
        """The same link with floats and tuples, a 3×3 inertia as its 6 numbers (after :meth:`validate`)."""
        return SpatialLink(float(self.mass), tuple(float(v) for v in self.com),  # type: ignore[arg-type]
                           inertia_six(self.inertia, where), str(self.name))  # type: ignore[arg-type]

    @property
    def inertia_matrix(self) -> np.ndarray:
        return inertia_matrix(self.inertia)


@dataclass(frozen=True)
class SpatialArmSpec:
    """A serial chain of revolute/prismatic joints in one :class:`Convention` (module docstring), validated when
    constructed (:class:`SpecError` naming ``joints[i]``/``links[i]``, the field and the value)."""

    joints: tuple[SpatialJoint, ...]
    links: tuple[SpatialLink, ...]
    convention: Convention = Convention.DH_STANDARD
    gravity: Vec3 = DEFAULT_SPATIAL_GRAVITY
    name: str = "arm"
    notes: str = ""
    source: str = field(default="", compare=False)
    """Where it came from (a TOML or URDF path, or ``preset NAME``)."""
    base_xyz: Vec3 = (0.0, 0.0, 0.0)
    base_rpy: Vec3 = (0.0, 0.0, 0.0)
    """Pose of frame 0 in the world (m; rad, URDF's rpy); gravity is a world vector.  Default: frame 0 = world."""

    kind = "spatial"

    def __post_init__(self) -> None:
        from crossdyn.conventions import MAX_LINKS

        if isinstance(self.convention, str) and self.convention in {c.value for c in Convention}:
            object.__setattr__(self, "convention", Convention(self.convention))
        if not isinstance(self.convention, Convention):
            raise SpecError(f"convention: unknown {self.convention!r}; known: "
                            f"{', '.join(c.value for c in Convention)}", "convention", self.convention)
        n = len(self.joints)
        if not 1 <= n <= MAX_LINKS:
            raise SpecError(f"joints: {n} joints given; a spatial arm has 1 to {MAX_LINKS}", "joints", n)
        if len(self.links) != n:
            raise SpecError(f"links: {len(self.links)} links for {n} joints (one link per joint)", "links",
                            len(self.links))
        for key, unit in (("gravity", "m/s^2"), ("base_xyz", "m"), ("base_rpy", "rad")):
            object.__setattr__(self, key, _vector(getattr(self, key), 3, key, unit))
        for i, (j, link) in enumerate(zip(self.joints, self.links, strict=True), start=1):
            j.validate(f"joints[{i}]")
            dh = self.convention is not Convention.ORIGIN
            if dh and j.dh is None:
                raise SpecError(f"joints[{i}].dh: the {self.convention.value} convention needs a DH row "
                                f"({', '.join(self.convention.columns)})", f"joints[{i}].dh", None)
            if dh and j.dh is not None:
                _vector(j.dh, 4, f"joints[{i}].dh", f"one {self.convention.value} DH row: "
                                                     f"{', '.join(self.convention.columns)}")
            if not dh and j.dh is not None:
                raise SpecError(f"joints[{i}].dh: a DH row needs convention dh-standard or dh-modified, the arm's "
                                f"is {self.convention.value}", f"joints[{i}].dh", j.dh)
            link.validate(f"links[{i}]")
        object.__setattr__(self, "joints", tuple(j.normalized() for j in self.joints))
        object.__setattr__(self, "links", tuple(link.normalized(f"links[{i}]")
                                                for i, link in enumerate(self.links, start=1)))

    @property
    def n(self) -> int:
        return len(self.joints)

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(j.name or f"joint{i}" for i, j in enumerate(self.joints, start=1))

    @property
    def link_names(self) -> tuple[str, ...]:
        return tuple(link.name or f"link{i}" for i, link in enumerate(self.links, start=1))

    @property
    def type_string(self) -> str:
        """"RRP" for a SCARA: R per revolute, P per prismatic joint."""
        return "".join("R" if j.type is JointKind.REVOLUTE else "P" for j in self.joints)

    def _row(self, i: int) -> dict[str, float]:
        row = self.joints[i].dh
        assert row is not None
        return dict(zip(self.convention.columns, (float(v) for v in row), strict=True))

    def dh_transform(self, i: int, q: float = 0.0) -> np.ndarray:
        """T_{i−1,i}(q) of joint i (0-based) as the table's own product (module docstring)."""
        r, j = self._row(i), self.joints[i]
        theta = r["theta"] + (q if j.type is JointKind.REVOLUTE else 0.0)
        d = r["d"] + (q if j.type is JointKind.PRISMATIC else 0.0)
        if self.convention is Convention.DH_STANDARD:
            return dh_standard(r["a"], r["alpha"], d, theta)
        return dh_modified(r["alpha"], r["a"], d, theta)

    def frame_offsets(self) -> tuple[np.ndarray, ...]:
        """Per link, the pose of its frame (the frame its inertial is given in) in body i of
        :meth:`to_robot_model`: Tx(a_i) Rx(α_i) for ``dh-standard``, the identity otherwise."""
        import numpy as np

        out = []
        for i in range(self.n):
            if self.convention is Convention.DH_STANDARD:
                r = self._row(i)
                out.append(translation((r["a"], 0.0, 0.0)) @ rot_x(r["alpha"]))
            else:
                out.append(np.eye(4))
        return tuple(out)

    def base(self) -> np.ndarray:
        """4×4 pose of frame 0 in the world."""
        T = translation(self.base_xyz)
        T[:3, :3] = rpy_matrix(self.base_rpy)
        return T

    def joint_frames(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """Per joint (origin 4×4 of body i in body i − 1, unit axis in body i), anchors at the origin; body 0 is
        the world (the base pose is in joint 1's origin)."""
        import numpy as np

        out = []
        for i, j in enumerate(self.joints):
            if self.convention is Convention.ORIGIN:
                origin = translation(j.xyz)
                origin[:3, :3] = rpy_matrix(j.rpy)
                out.append((origin, j.unit_axis))
                continue
            r = self._row(i)
            if self.convention is Convention.DH_STANDARD:
                before = self.frame_offsets()[i - 1] if i else np.eye(4)
                origin = before @ rot_z(r["theta"]) @ translation((0.0, 0.0, r["d"]))
            else:
                origin = self.dh_transform(i, 0.0)
            out.append((origin, np.array([0.0, 0.0, 1.0])))
        out[0] = (self.base() @ out[0][0], out[0][1])
        return tuple(out)

    def to_robot_model(self, fmt: Format | None = None) -> RobotModel:
        """crossdyn's spatial model of this arm (module docstring: body frames on the joint axes, anchors 0);
        ``fmt`` is the format it is labelled with (default URDF, the file it writes exactly)."""
        import numpy as np

        from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, RobotModel

        joints, bodies = [], []
        for i, ((origin, axis), j, link, off) in enumerate(zip(self.joint_frames(), self.joints, self.links,
                                                                self.frame_offsets(), strict=True)):
            kind = JointType.PRISMATIC if j.type is JointKind.PRISMATIC else (
                JointType.REVOLUTE if j.limits is not None else JointType.CONTINUOUS)
            lo, hi = j.limits if j.limits is not None else (None, None)
            joints.append(Joint(self.joint_names[i], kind, origin, axis, np.zeros(3), lower=lo, upper=hi,
                                effort=j.effort, damping=float(j.damping), armature=float(j.armature)))
            inertial = Inertial(float(link.mass), np.array(link.com, dtype=float), link.inertia_matrix)
            bodies.append(Body(self.link_names[i], inertial.transformed(off[:3, :3], off[:3, 3])))
        return RobotModel(self.name, self.source or f"spatial spec {self.name}", fmt or Format.URDF, "base",
                          tuple(bodies), tuple(joints), tuple(range(-1, self.n - 1)), np.array(self.gravity))

    def to_urdf(self) -> str:
        """The URDF of :meth:`to_robot_model` (:mod:`crossdyn.robots.write_urdf`)."""
        from crossdyn.robots.write_urdf import write_urdf

        return write_urdf(self.to_robot_model())

    def to_mjcf(self, timestep: float = 1e-3) -> str:
        """The MJCF of :meth:`to_robot_model` (:mod:`crossdyn.robots.write_mjcf`)."""
        from crossdyn.robots.model import Format
        from crossdyn.robots.write_mjcf import write_mjcf

        return write_mjcf(self.to_robot_model(Format.MJCF), timestep)

    def dh_forward_kinematics(self, q) -> np.ndarray:
        """Pose of the last frame (DH frame n, or frame n) in the world at q: base · the direct product of the
        table's matrices (or of origin · motion for ``origin``), the reference :meth:`to_robot_model` is tested
        against."""
        T = self.base()
        for i, j in enumerate(self.joints):
            if self.convention is not Convention.ORIGIN:
                T = T @ self.dh_transform(i, float(q[i]))
                continue
            origin = translation(j.xyz)
            origin[:3, :3] = rpy_matrix(j.rpy)
            move = axis_angle(j.unit_axis, float(q[i])) if j.type is JointKind.REVOLUTE else translation(
                float(q[i]) * j.unit_axis)
            T = T @ origin @ move
        return T


def from_robot_model(model: RobotModel, name: str | None = None) -> SpatialArmSpec:
    """A serial :class:`~crossdyn.robots.model.RobotModel` (read from a URDF) as an ``origin``-convention spec:
    each joint's origin as xyz + rpy, its axis, its limits, effort, damping and armature; each body's inertial
    (fixed children already merged by the reader).  A joint anchor off the body origin (MJCF's joint ``pos``) is
    moved into the frames: body i's frame is shifted to the anchor (origin · T(a)), its inertial and its child's
    origin by −a, which leaves every X_i(q) unchanged.  SpecError for a tree."""
    import numpy as np

    from crossdyn.robots.model import JointType

    if not model.is_chain:
        raise SpecError(f"{model.source}: a spatial arm spec is a serial chain; this model is a tree (parents "
                        f"{list(model.parents)})", "parents", list(model.parents))
    joints, links, shift = [], [], np.zeros(3)
    for joint, body in zip(model.joints, model.bodies, strict=True):
        origin = translation(-shift) @ joint.origin @ translation(joint.anchor)
        shift = np.array(joint.anchor, dtype=float)
        kind = JointKind.PRISMATIC if joint.type is JointType.PRISMATIC else JointKind.REVOLUTE
        limits = None if joint.lower is None or joint.upper is None or joint.type is JointType.CONTINUOUS else (
            joint.lower, joint.upper)
        joints.append(SpatialJoint(kind, None, tuple(origin[:3, 3]), matrix_rpy(origin[:3, :3]),  # type: ignore[arg-type]
                                   tuple(joint.axis), joint.name, limits, joint.effort,  # type: ignore[arg-type]
                                   joint.damping, joint.armature))
        I = body.inertial.inertia
        links.append(SpatialLink(body.inertial.mass, tuple(body.inertial.com - shift),  # type: ignore[arg-type]
                                 (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2]), body.name))
    return SpatialArmSpec(tuple(joints), tuple(links), Convention.ORIGIN, tuple(model.gravity),  # type: ignore[arg-type]
                          name or model.name, f"read from {model.source}", source=model.source)
