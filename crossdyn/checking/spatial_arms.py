"""The spatial textbook arms that ``crossdyn check`` knows (issue 27), with their general parameters.

The arms are the presets of :mod:`crossdyn.models.spatial_presets` (their conventions in ``crossdyn info``); their
symbols come from :func:`crossdyn.analytic.spatial_from_spec.sym_arm`: every number of the spec that is not zero
becomes a symbol, so the user's ``p`` carries exactly these names (:attr:`SpatialArm.layout`): the DH lengths
``p.a2``, ``p.d1`` (a prismatic joint's fixed offset ``p.o{i}``; its coordinate is ``q(i)`` itself, the textbook's
d_i), the explicit origins' ``p.x1``, ``p.z2``, …, ``p.g`` (|gravity|, m/s²), and per link i ``p.m{i}`` (kg), the
centre of mass components that are not zero ``p.cx{i}``, ``p.cy{i}``, ``p.cz{i}`` (m, in link i's frame) and the
inertia about the centre of mass ``p.Ixx{i}``, ``p.Iyy{i}``, ``p.Izz{i}`` (+ ``p.Ixy{i}`` … when the spec has
products of inertia) in kg m².

Random valid parameter sets (:func:`random_values`) keep each link's structure (the same non-zero components):
lengths, centre-of-mass components and rotor armatures × U(0.6, 1.4) of the arm's own (sign kept), masses in
[0.5, 2.5] kg,
principal moments drawn to satisfy the triangle inequality (a full inertia turned by a random rotation), so every
set is a physically consistent rigid body.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import sympy as sp

from crossdyn.analytic.spatial_arm import SymArm, robot_model
from crossdyn.analytic.spatial_from_spec import sym_arm
from crossdyn.equations.params import NamedParams
from crossdyn.errors import InputError
from crossdyn.models.spatial_presets import SPATIAL_PRESETS
from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, RobotModel

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

    # how the arm's parameter sets reach the user's functions (crossdyn.checking.evaluation.ParamsView)
    def rows(self, sets) -> np.ndarray:
        """(S, len(layout)): each set's values in :attr:`layout` order."""
        return np.array([self.row(v) for v in sets])

    def labels(self, sets) -> list[str]:
        """Set 0 is the arm's own parameters, the others random parameter set k."""
        return ["the arm's own parameters" if k == 0 else f"random parameter set {k}" for k in range(len(sets))]

    def user_params(self, sets, labels: list[str]) -> list[tuple]:
        """``p`` by name (:class:`~crossdyn.equations.params.NamedParams`) and the set's label, per set."""
        return [(NamedParams(self.layout, row, self.n), label) for row, label in zip(self.rows(sets), labels, strict=True)]

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
            joints.append(Joint(f"joint{k}", kind, prev_B @ A, np.array([float(a) for a in j.axis]),
                                armature=float(values.get(f"Ia{k}", 0.0))))     # M_kk += Ia{k} (0 without one)
            prev_B = B
        g = np.array([float(sp.sympify(gk).subs({s: values[str(s)] for s in sp.sympify(gk).free_symbols}))
                      for gk in self.sym.gravity])
        return RobotModel(self.name, f"crossdyn spatial preset {self.name}", Format.URDF, "base", tuple(bodies),
                          tuple(joints), tuple(range(-1, self.n - 1)), g)

    def reference_model(self, values: dict) -> RobotModel:
        """The same through SymPy substitution (:func:`crossdyn.analytic.spatial_arm.robot_model`; slow, for tests)."""
        return robot_model(self.sym, values)

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": "spatial", "joints": self.types, "convention": "dh-standard",
                "parameters": {k: float(self.values[k]) for k in self.layout}, "info": self.info}


def from_spec(spec, name: str | None = None) -> SpatialArm:
    """The check's arm for a :class:`~crossdyn.models.spatial_spec.SpatialArmSpec`: its symbols by
    :func:`crossdyn.analytic.spatial_from_spec.sym_arm` (the spec's non-zero numbers as symbols), its own numbers,
    its notes, and the prismatic range from the joints' limits where they are given."""
    sym, values = sym_arm(spec)
    lows = [j.limits[0] for j in spec.joints if j.type.value == "prismatic" and j.limits is not None]
    highs = [j.limits[1] for j in spec.joints if j.type.value == "prismatic" and j.limits is not None]
    rng = (max(lows), min(highs)) if lows and max(lows) < min(highs) else PRISMATIC_RANGE
    return SpatialArm(name or spec.name, sym, values, f"{spec.notes} ({spec.convention.value})".strip(), rng)


def _spec_file(arm):
    """The SpatialArmSpec of a spec file (``[arm] kind = "spatial"``), else None (a planar file, or one that does
    not read: the planar path reports it as it always has)."""
    if not isinstance(arm, (str, os.PathLike)) or not Path(arm).is_file():
        return None
    from crossdyn.models import load_arm

    try:
        spec = load_arm(arm, spatial=True)
    except Exception:  # noqa: BLE001 — any error is the planar loader's to report, unchanged
        return None
    return spec if getattr(spec, "kind", "") == "spatial" else None


def is_spatial(arm) -> bool:
    """True for a spatial preset's name, a spatial spec file, a SpatialArmSpec or a :class:`SpatialArm`."""
    if isinstance(arm, SpatialArm) or getattr(arm, "kind", "") == "spatial":
        return True
    return (isinstance(arm, str) and arm in SPATIAL_PRESETS) or _spec_file(arm) is not None


@functools.lru_cache(maxsize=16)
def _preset(name: str) -> SpatialArm:
    return from_spec(SPATIAL_PRESETS[name](), name)


def load_spatial(arm) -> SpatialArm:
    """A spatial preset's arm by name (``crossdyn.models.spatial_presets``), a spatial spec file's or a
    SpatialArmSpec's (:func:`from_spec`), or ``arm`` itself."""
    if isinstance(arm, SpatialArm):
        return arm
    if getattr(arm, "kind", "") == "spatial":
        return from_spec(arm)
    if isinstance(arm, str) and arm in SPATIAL_PRESETS:
        return _preset(arm)
    spec = _spec_file(arm)
    if spec is None:
        raise InputError(f"{arm}: not a spatial preset ({', '.join(SPATIAL_PRESETS)}) nor a spatial spec file")
    return from_spec(spec)


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
        if f"Ia{i}" in own:         # a rotor armature: × U(0.6, 1.4) of the arm's own, like a length
            out[f"Ia{i}"] = own[f"Ia{i}"] * rng.uniform(0.6, 1.4)
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
