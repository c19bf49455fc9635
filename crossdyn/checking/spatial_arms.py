"""The textbook spatial arms that ``crossdyn check`` knows (issue 27), with their general parameters.

Each arm is a Denavit–Hartenberg table in symbols (:func:`crossdyn.analytic.spatial_arm.dh_arm`, standard/distal
convention, Spong–Hutchinson–Vidyasagar: ⁱ⁻¹Tᵢ = Rz(θᵢ) Tz(dᵢ) Tx(aᵢ) Rx(αᵢ), the joint variable added to θᵢ for a
revolute joint and to dᵢ for a prismatic one), the link inertials a student writes (which centre-of-mass
components and which inertia entries are not zero, in link i's DH frame) and the arm's own numbers.

The user's ``p`` carries exactly the symbols of that model (:class:`SpatialArm.layout`): the DH lengths
(``p.L2`` = a₂, ``p.d1`` = d₁, …), ``p.g`` (|gravity|, m/s²), and per link i ``p.m{i}`` (kg), the centre of mass
``p.cx{i}``, ``p.cy{i}``, ``p.cz{i}`` (m, in DH frame i; only the components the arm declares) and the inertia about
the centre of mass ``p.Ixx{i}``, ``p.Iyy{i}``, ``p.Izz{i}`` (+ ``p.Ixy{i}``, ``p.Ixz{i}``, ``p.Iyz{i}`` for a full
inertia) in kg m².  A prismatic joint's coordinate is ``q(i)`` itself: the textbook's d₂ of an RP arm is q₂.

Random valid parameter sets (:func:`random_values`) keep each link's structure (the same non-zero components):
lengths and centre-of-mass components × U(0.6, 1.4) of the arm's own (sign kept), masses in [0.5, 2.5] kg,
principal moments drawn to satisfy the triangle inequality (a full inertia turned by a random rotation), so every
set is a physically consistent rigid body.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import sympy as sp

from crossdyn.analytic.spatial_arm import LinkInertia, SymArm, dh_arm, robot_model
from crossdyn.errors import InputError
from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, RobotModel

HALF_PI = sp.pi / 2
G = sp.Symbol("g", positive=True)
INERTIA_INDEX = {"Ixx": (0, 0), "Ixy": (0, 1), "Ixz": (0, 2), "Iyy": (1, 1), "Iyz": (1, 2), "Izz": (2, 2)}
PRISMATIC_RANGE = (0.2, 1.2)
"""Where a prismatic joint's coordinate is drawn (m): an extension, never through 0 (the joint's slide length)."""


@dataclass(frozen=True)
class SpatialArm:
    """A spatial arm for ``check``: its symbolic model (``sym``), its own numbers (``values``: symbol name →
    float), the text ``info`` shows and the range its prismatic coordinates are drawn from."""

    name: str
    sym: SymArm
    values: dict = field(hash=False, compare=False)
    info: str = ""
    prismatic_range: tuple[float, float] = PRISMATIC_RANGE

    kind = "spatial"

    @property
    def n(self) -> int:
        return self.sym.n

    @property
    def types(self) -> str:
        return "".join("R" if j.type == "revolute" else "P" for j in self.sym.joints)

    @cached_property
    def layout(self) -> tuple[str, ...]:
        """The user's parameter names in order: geometry, gravity, then link by link m, c…, I…."""
        names = [str(s) for s in self.sym.geometry_symbols() + self.sym.gravity_symbols()]
        return tuple(names + [str(s) for s in self.sym.inertial_symbols()])

    def row(self, values: dict) -> np.ndarray:
        return np.array([float(values[k]) for k in self.layout])

    @cached_property
    def _frames(self):
        """(A_i, B_i) of every joint as one numeric function of the geometry symbols (lambdified once)."""
        geometry = self.sym.geometry_symbols()
        mats = [m for j in self.sym.joints for m in (j.A, j.B)]
        return geometry, sp.lambdify(geometry, mats, modules="numpy")

    def model(self, values: dict) -> RobotModel:
        """crossdyn's :class:`~crossdyn.robots.model.RobotModel` of the arm with these numbers: the frames of
        :func:`crossdyn.analytic.spatial_arm.robot_model` (body i's frame after A_i · Motion_i, origin_i =
        B_{i−1} A_i, link i's inertial moved by B_i), with the fixed transforms lambdified once."""
        geometry, f = self._frames
        mats = [np.array(m, float) for m in f(*(float(values[str(s)]) for s in geometry))]
        bodies, joints, prev_B = [], [], np.eye(4)
        for i, j in enumerate(self.sym.joints):
            A, B = mats[2 * i], mats[2 * i + 1]
            k = i + 1
            I = np.zeros((3, 3))
            for nm, (r, c) in INERTIA_INDEX.items():
                I[r, c] = I[c, r] = float(values.get(f"{nm}{k}", 0.0))
            com = np.array([float(values.get(f"{c}{k}", 0.0)) for c in ("cx", "cy", "cz")])
            inertial = Inertial(float(values[f"m{k}"]), com, I).transformed(B[:3, :3], B[:3, 3])
            bodies.append(Body(f"link{k}", inertial))
            kind = JointType.REVOLUTE if j.type == "revolute" else JointType.PRISMATIC
            joints.append(Joint(f"joint{k}", kind, prev_B @ A, np.array([float(a) for a in j.axis])))
            prev_B = B
        g = np.array([float(sp.sympify(gk).subs({G: values["g"]})) for gk in self.sym.gravity])
        return RobotModel(self.name, f"crossdyn spatial preset {self.name}", Format.URDF, "base", tuple(bodies),
                          tuple(joints), tuple(range(-1, self.n - 1)), g)

    def reference_model(self, values: dict) -> RobotModel:
        """The same through SymPy substitution (:func:`crossdyn.analytic.spatial_arm.robot_model`; slow, for tests)."""
        return robot_model(self.sym, values)

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": "spatial", "joints": self.types, "convention": "dh-standard",
                "parameters": {k: float(self.values[k]) for k in self.layout}, "info": self.info}


def _arm(name: str, rows, types: str, links, values: dict, info: str, gravity=None) -> SpatialArm:
    sym = dh_arm(name, rows, types, links=links, gravity=gravity, info=info)
    arm = SpatialArm(name, sym, dict(values), info)
    missing = [k for k in arm.layout if k not in values]
    if missing:
        raise ValueError(f"{name}: no value for {missing}")
    return arm


def _diag(i: int, xx: float, yy: float, zz: float) -> dict:
    return {f"Ixx{i}": xx, f"Iyy{i}": yy, f"Izz{i}": zz}


def rp_polar() -> SpatialArm:
    return _arm("rp-polar", [(0, HALF_PI, 0, 0), (0, 0, 0, 0)], "RP",
                [LinkInertia(("cz",), "diagonal"), LinkInertia(("cz",), "diagonal")],
                {"g": 9.81, "m1": 2.0, "cz1": -0.2, **_diag(1, 0.03, 0.02, 0.04),
                 "m2": 1.0, "cz2": -0.25, **_diag(2, 0.02, 0.02, 0.005)},
                "RP polar arm: joint 1 turns about z0, which is horizontal (gravity is (0, -g, 0) in frame 0), so "
                "the arm moves in the vertical x0-y0 plane; joint 2 slides along the arm (q2 = the extension, the "
                "textbook's d2); link i's CoM at cz_i along z_i", gravity=(0, -G, 0))


def rpp_cylindrical() -> SpatialArm:
    return _arm("rpp-cylindrical", [(0, 0, "d1", 0), (0, -HALF_PI, 0, 0), (0, 0, 0, 0)], "RPP",
                [LinkInertia(("cz",), "diagonal")] * 3,
                {"d1": 0.5, "g": 9.81, "m1": 3.0, "cz1": -0.25, **_diag(1, 0.06, 0.06, 0.02),
                 "m2": 1.5, "cz2": -0.1, **_diag(2, 0.02, 0.02, 0.01),
                 "m3": 1.0, "cz3": -0.3, **_diag(3, 0.03, 0.03, 0.002)},
                "cylindrical RPP (Spong's table): joint 1 turns about the vertical z0, joint 2 lifts along z1 = z0, "
                "joint 3 extends horizontally along z2; gravity (0, 0, -g)")


def scara() -> SpatialArm:
    return _arm("scara", [("L1", 0, "d1", 0), ("L2", sp.pi, 0, 0), (0, 0, 0, 0)], "RRP",
                [LinkInertia(("cx",), "diagonal"), LinkInertia(("cx",), "diagonal"), LinkInertia(("cz",), "diagonal")],
                {"L1": 0.5, "L2": 0.4, "d1": 0.3, "g": 9.81, "m1": 2.0, "cx1": -0.25, **_diag(1, 0.005, 0.04, 0.04),
                 "m2": 1.5, "cx2": -0.2, **_diag(2, 0.003, 0.02, 0.02),
                 "m3": 0.5, "cz3": -0.1, **_diag(3, 0.002, 0.002, 0.0005)},
                "SCARA RRP (Spong's table): joints 1, 2 turn about vertical axes, a1 = L1, a2 = L2, alpha2 = pi (z2 "
                "points down), joint 3 slides down along z2 (q3 = d3); gravity (0, 0, -g); CoM of links 1, 2 at "
                "cx_i along x_i (negative: before the distal frame), of link 3 at cz3")


def elbow_rrr() -> SpatialArm:
    return _arm("elbow-rrr", [(0, HALF_PI, "d1", 0), ("L2", 0, 0, 0), ("L3", 0, 0, 0)], "RRR",
                [LinkInertia(("cy",), "diagonal"), LinkInertia(("cx",), "diagonal"), LinkInertia(("cx",), "diagonal")],
                {"L2": 0.5, "L3": 0.4, "d1": 0.4, "g": 9.81, "m1": 3.0, "cy1": -0.2, **_diag(1, 0.05, 0.02, 0.05),
                 "m2": 2.0, "cx2": -0.25, **_diag(2, 0.004, 0.05, 0.05),
                 "m3": 1.0, "cx3": -0.2, **_diag(3, 0.002, 0.015, 0.015)},
                "anthropomorphic (elbow) RRR, the first three joints of a PUMA without offsets (Spong's table): "
                "d1, alpha1 = pi/2, a2 = L2, a3 = L3; gravity (0, 0, -g); CoM of link 1 at cy1 along y1 (the base "
                "axis), of links 2, 3 at cx_i along x_i")


def ppp_cartesian() -> SpatialArm:
    return _arm("ppp-cartesian", [(0, -HALF_PI, 0, 0), (0, -HALF_PI, 0, -HALF_PI), (0, 0, 0, 0)], "PPP",
                [LinkInertia(("cz",), "diagonal")] * 3,
                {"g": 9.81, "m1": 4.0, "cz1": -0.2, **_diag(1, 0.1, 0.1, 0.05),
                 "m2": 2.0, "cz2": -0.2, **_diag(2, 0.05, 0.05, 0.02),
                 "m3": 1.0, "cz3": -0.1, **_diag(3, 0.01, 0.01, 0.005)},
                "Cartesian PPP (Spong's table): joint 1 lifts along the vertical z0, joints 2 and 3 slide "
                "horizontally along z1 and z2; gravity (0, 0, -g)")


def pan_tilt() -> SpatialArm:
    return _arm("pan-tilt", [(0, HALF_PI, "d1", 0), ("L2", 0, 0, 0)], "RR",
                [LinkInertia(("cy",), "diagonal"), LinkInertia(("cx",), "full")],
                {"L2": 0.3, "d1": 0.2, "g": 9.81, "m1": 1.0, "cy1": -0.1, **_diag(1, 0.004, 0.002, 0.004),
                 "m2": 0.8, "cx2": -0.15, "Ixx2": 0.002, "Ixy2": 0.0002, "Ixz2": -0.0001, "Iyy2": 0.008,
                 "Iyz2": 0.0003, "Izz2": 0.009},
                "pan-tilt RR: pan about the vertical z0, tilt about the horizontal z1 (alpha1 = pi/2), a2 = L2; "
                "gravity (0, 0, -g); link 2 has a full inertia (products Ixy2, Ixz2, Iyz2)")


SPATIAL_PRESETS = {"rp-polar": rp_polar, "rpp-cylindrical": rpp_cylindrical, "scara": scara,
                   "elbow-rrr": elbow_rrr, "ppp-cartesian": ppp_cartesian, "pan-tilt": pan_tilt}


def is_spatial(arm) -> bool:
    """True for a spatial preset's name or a :class:`SpatialArm`."""
    return isinstance(arm, SpatialArm) or (isinstance(arm, str) and arm in SPATIAL_PRESETS)


def load_spatial(arm) -> SpatialArm:
    if isinstance(arm, SpatialArm):
        return arm
    if arm not in SPATIAL_PRESETS:
        raise InputError(f"{arm}: not a spatial preset; known: {', '.join(SPATIAL_PRESETS)}")
    return SPATIAL_PRESETS[arm]()


def _inertia(rng: np.random.Generator, own: np.ndarray, full: bool) -> np.ndarray:
    """A random inertia about the CoM near ``own``'s scale: principal moments a, b, then c in [|a − b|, a + b]
    (the triangle inequality, strictly inside), turned by a random rotation when ``full``."""
    scale = float(np.trace(own)) / 3
    a, b = rng.uniform(0.5, 1.5, 2) * scale
    c = rng.uniform(abs(a - b) + 0.05 * scale, a + b - 0.05 * scale)
    d = rng.permutation([a, b, c])
    if not full:
        return np.diag(d)
    R, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return R @ np.diag(d) @ R.T


def random_values(arm: SpatialArm, rng: np.random.Generator, vary_gravity: bool = False) -> dict:
    """One random valid parameter set with the arm's structure (module docstring); gravity stays the arm's unless
    ``vary_gravity`` (the sets that name terms)."""
    own = arm.values
    out = {str(s): own[str(s)] * rng.uniform(0.6, 1.4) for s in arm.sym.geometry_symbols()}
    out["g"] = own["g"] * (rng.uniform(0.6, 1.4) if vary_gravity else 1.0)
    for i, j in enumerate(arm.sym.joints, start=1):
        out[f"m{i}"] = rng.uniform(0.5, 2.5)
        for c in j.link.com:
            out[f"{c}{i}"] = own[f"{c}{i}"] * rng.uniform(0.6, 1.4)
        names = j.link.names()[1 + len(j.link.com):]
        if not names:
            continue
        I_own = np.zeros((3, 3))
        for nm in names:
            row, col = INERTIA_INDEX[nm]
            I_own[row, col] = I_own[col, row] = own[f"{nm}{i}"]
        I = _inertia(rng, I_own, j.link.inertia == "full")
        out.update({f"{nm}{i}": float(I[INERTIA_INDEX[nm]]) for nm in names})
    return out
