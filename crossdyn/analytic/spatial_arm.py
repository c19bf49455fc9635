"""A serial arm's kinematics with symbolic geometry, for :mod:`crossdyn.analytic.spatial_symbolic`.

Each joint i moves link i relative to link i−1 (link 0: the fixed base) by

    X_i(q_i) = A_i · Motion_i(q_i) · B_i,
    Motion_i = Rot(axis_i, q_i)   (revolute)   or   T(q_i · axis_i)   (prismatic),

where A_i and B_i are fixed 4×4 homogeneous transforms whose entries are exact SymPy expressions: rotations with
exact entries (0, ±1, √3/2, … — an angle such as α = ±π/2 kept exact) and translations in symbols (``L1``,
``d1``, …) or exact numbers.  Link i's frame is the one after B_i: its centre of mass c_i and its inertia I_i
(about the centre of mass) are expressed there, as in a textbook's Denavit–Hartenberg link frame.

Denavit–Hartenberg tables (:func:`dh_arm`), each row (a, α, d, θ) with the joint variable added to θ (revolute)
or d (prismatic):

* ``standard`` (Spong, Siciliano): ⁱ⁻¹Tᵢ = Rot_z(θ_i) T_z(d_i) T_x(a_i) Rot_x(α_i): A = 1, Motion about/along z,
  B = Rot_z(θ⁰) T_z(d⁰) T_x(a) Rot_x(α) with the fixed part of θ or d;
* ``modified`` (Craig): ⁱ⁻¹Tᵢ = Rot_x(α_{i−1}) T_x(a_{i−1}) Rot_z(θ_i) T_z(d_i) (the row's a and α are the
  previous link's): A = Rot_x(α) T_x(a), Motion about/along z, B = Rot_z(θ⁰) T_z(d⁰).

:func:`robot_model` turns an arm and numbers for its symbols into a :class:`crossdyn.robots.model.RobotModel`
(body frame after A_i·Motion_i, joint frame of the model: origin_i = B_{i−1} A_i, the link's inertial moved by
B_i), the independent path to Pinocchio and :mod:`crossdyn.spatial`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, RobotModel

JOINT_TYPES = ("revolute", "prismatic")
COM_NAMES = ("cx", "cy", "cz")
INERTIA_NAMES = ("Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz")


def rot(axis, angle) -> sp.Matrix:
    """4×4 rotation about the exact unit ``axis`` by ``angle`` (Rodrigues; exact for exact angles)."""
    k = sp.Matrix(axis)
    c, s = sp.cos(angle), sp.sin(angle)
    K = sp.Matrix([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    R = sp.eye(3) + s * K + (1 - c) * K * K
    out = sp.eye(4)
    out[:3, :3] = R.applyfunc(sp.expand)
    return out


def trans(x=0, y=0, z=0) -> sp.Matrix:
    """4×4 translation by (x, y, z)."""
    out = sp.eye(4)
    out[:3, 3] = sp.Matrix([_entry(x), _entry(y), _entry(z)])
    return out


@dataclass(frozen=True)
class LinkInertia:
    """Which inertial parameters of a link are symbols: the centre-of-mass components named in ``com`` (the others
    0) and the inertia entries: ``"full"`` (Ixx … Izz), ``"diagonal"`` (Ixx, Iyy, Izz) or ``"none"`` (a point
    mass)."""

    com: tuple[str, ...] = COM_NAMES
    inertia: str = "full"

    def __post_init__(self) -> None:
        if any(c not in COM_NAMES for c in self.com):
            raise ValueError(f"LinkInertia.com: components must be among {COM_NAMES}, got {self.com}")
        if self.inertia not in ("full", "diagonal", "none"):
            raise ValueError(f"LinkInertia.inertia: 'full', 'diagonal' or 'none', got {self.inertia!r}")

    def names(self) -> tuple[str, ...]:
        inertia = {"full": INERTIA_NAMES, "diagonal": ("Ixx", "Iyy", "Izz"), "none": ()}[self.inertia]
        return ("m", *self.com, *inertia)


@dataclass(frozen=True)
class SymJoint:
    """One joint: ``type`` (revolute or prismatic), its exact unit ``axis`` in the frame after A, and A, B."""

    type: str
    axis: tuple
    A: sp.ImmutableMatrix = field(default_factory=lambda: sp.ImmutableMatrix(sp.eye(4)))
    B: sp.ImmutableMatrix = field(default_factory=lambda: sp.ImmutableMatrix(sp.eye(4)))
    link: LinkInertia = LinkInertia()
    armature: bool = False
    """A rotor armature I_a on this joint (kinetic energy ½ I_a q̇², symbol ``Ia{i}``: M_ii += Ia{i})."""

    def __post_init__(self) -> None:
        if self.type not in JOINT_TYPES:
            raise ValueError(f"joint type: must be one of {', '.join(JOINT_TYPES)}, got {self.type!r}")
        axis = tuple(sp.nsimplify(a) for a in self.axis)
        if len(axis) != 3 or sp.simplify(sum(a * a for a in axis) - 1) != 0:
            raise ValueError(f"joint axis: must be an exact unit 3-vector, got {self.axis}")
        object.__setattr__(self, "axis", axis)
        object.__setattr__(self, "A", sp.ImmutableMatrix(self.A))
        object.__setattr__(self, "B", sp.ImmutableMatrix(self.B))


@dataclass(frozen=True)
class SymArm:
    """A serial arm: its joints in order, and gravity in the base frame (exact expressions; default (0, 0, −g))."""

    name: str
    joints: tuple[SymJoint, ...]
    gravity: tuple = (0, 0, -sp.Symbol("g", positive=True))
    info: str = ""

    @property
    def n(self) -> int:
        return len(self.joints)

    def geometry_symbols(self) -> list[sp.Symbol]:
        """The symbols of the fixed transforms (L1, d1, …), sorted by name."""
        free: set = set()
        for j in self.joints:
            free |= j.A.free_symbols | j.B.free_symbols
        return sorted(free, key=lambda s: (str(s).rstrip("0123456789"), _index(s)))

    def gravity_symbols(self) -> list[sp.Symbol]:
        free: set = set()
        for gk in self.gravity:
            free |= sp.sympify(gk).free_symbols
        return sorted(free, key=str)

    def inertial_symbols(self) -> list[sp.Symbol]:
        """m1, cx1, …, Izz1, (Ia1,) m2, … (the links' declared inertial parameters and armatures, link by link)."""
        return [sp.Symbol(f"{name}{i + 1}", real=True) for i, j in enumerate(self.joints)
                for name in (*j.link.names(), *(("Ia",) if j.armature else ()))]


def _index(s) -> int:
    digits = str(s)[len(str(s).rstrip("0123456789")):]
    return int(digits) if digits else 0


def _entry(value):
    if isinstance(value, str):
        return sp.Symbol(value, real=True)
    return sp.nsimplify(value)


def dh_arm(name: str, rows, types: str, convention: str = "standard", links=None, gravity=None,
           info: str = "") -> SymArm:
    """An arm from a Denavit–Hartenberg table: ``rows`` of (a, α, d, θ) — a string is a symbol (``"L1"``), a
    number or SymPy expression is exact (``sp.pi / 2``); ``types`` one letter per joint (``"R"``/``"P"``).  The
    joint variable q_i adds to θ_i (R) or d_i (P).  See the module docstring for both conventions."""
    if convention not in ("standard", "modified"):
        raise ValueError(f"DH convention: 'standard' or 'modified', got {convention!r}")
    if len(types) != len(rows):
        raise ValueError(f"DH table: {len(rows)} rows but {len(types)} joint types {types!r}")
    joints = []
    for i, (row, t) in enumerate(zip(rows, types, strict=True)):
        if len(row) != 4:
            raise ValueError(f"DH table row {i + 1}: 4 columns (a, alpha, d, theta), got {len(row)}: {row}")
        if t not in "RP":
            raise ValueError(f"DH table row {i + 1}: joint type must be R or P, got {t!r}")
        a, alpha, d, theta = (_entry(v) for v in row)
        if alpha.free_symbols or theta.free_symbols:
            raise ValueError(f"DH table row {i + 1}: alpha and theta must be exact angles, got {alpha}, {theta}")
        # the joint variable adds to θ (R) or d (P); Rot_z(θ) and T_z(d) commute with the motion along z, so the
        # row's fixed θ goes to A and its fixed d to B for either type
        if convention == "standard":
            A = rot((0, 0, 1), theta)
            B = trans(0, 0, d) * trans(a, 0, 0) * rot((1, 0, 0), alpha)
        else:
            A = rot((1, 0, 0), alpha) * trans(a, 0, 0) * rot((0, 0, 1), theta)
            B = trans(0, 0, d)
        link = links[i] if links is not None else LinkInertia()
        joints.append(SymJoint("revolute" if t == "R" else "prismatic", (0, 0, 1), A, B, link))
    grav = tuple(gravity) if gravity is not None else (0, 0, -sp.Symbol("g", positive=True))
    return SymArm(name, tuple(joints), grav, info)


def _num(M, values: dict) -> np.ndarray:
    return np.array(sp.ImmutableMatrix(M).subs(values).evalf(30), dtype=float)


def robot_model(arm: SymArm, values: dict) -> RobotModel:
    """The arm with numbers (``values``: symbol name or symbol → float, every geometry, inertial and gravity
    symbol) as a :class:`RobotModel` (see the module docstring for the frames)."""
    vals = {(sp.Symbol(k, real=True) if isinstance(k, str) else k): v for k, v in values.items()}
    for k, v in list(vals.items()):  # the same name with any assumptions
        vals.update({sp.Symbol(str(k), positive=True): v, sp.Symbol(str(k)): v})
    bodies, joints = [], []
    prev_B = np.eye(4)
    for i, j in enumerate(arm.joints):
        origin = prev_B @ _num(j.A, vals)
        B = _num(j.B, vals)
        sym = {nm: vals.get(sp.Symbol(f"{nm}{i + 1}", real=True), 0.0) for nm in ("m", *COM_NAMES, *INERTIA_NAMES)}
        I = np.array([[sym["Ixx"], sym["Ixy"], sym["Ixz"]], [sym["Ixy"], sym["Iyy"], sym["Iyz"]],
                      [sym["Ixz"], sym["Iyz"], sym["Izz"]]])
        inertial = Inertial(sym["m"], np.array([sym["cx"], sym["cy"], sym["cz"]]), I).transformed(B[:3, :3], B[:3, 3])
        bodies.append(Body(f"link{i + 1}", inertial))
        jt = JointType.REVOLUTE if j.type == "revolute" else JointType.PRISMATIC
        armature = float(vals.get(sp.Symbol(f"Ia{i + 1}", real=True), 0.0)) if j.armature else 0.0
        joints.append(Joint(f"joint{i + 1}", jt, origin, np.array([float(a) for a in j.axis]), armature=armature))
        prev_B = B
    g = np.array([float(sp.sympify(gk).subs(vals)) for gk in arm.gravity])
    return RobotModel(arm.name, "<crossdyn.analytic.spatial_arm>", Format.URDF, "base", tuple(bodies), tuple(joints),
                      tuple(range(-1, arm.n - 1)), g)
