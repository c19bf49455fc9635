"""A spatial arm specification (``crossdyn.models.spatial_spec.SpatialArmSpec``) as a :class:`SymArm` with symbols.

The spec's numbers become symbols where they are not zero, so that the derivation keeps the textbook's structure
(a zero offset stays 0, a centre of mass on the link's axis has one coordinate):

* DH rows (standard or modified): a nonzero ``a`` is ``a{i}``, a nonzero ``d`` is ``d{i}`` (a prismatic joint's
  fixed ``d`` offset is ``o{i}``: its coordinate is q{i}, the student's d{i}); α and θ stay exact angles
  (π/2 recognised from its float by :func:`sympy.nsimplify` with π);
* ``origin`` joints: the nonzero components of ``xyz`` are ``x{i}``, ``y{i}``, ``z{i}``; rpy and the axis exact;
* the base pose: ``x0``, ``y0``, ``z0``; rpy exact;
* link i: ``m{i}``, the nonzero components of its centre of mass ``cx{i}``, ``cy{i}``, ``cz{i}``, and its inertia
  ``Ixx{i}``, ``Iyy{i}``, ``Izz{i}`` (plus ``Ixy{i}``, ``Ixz{i}``, ``Iyz{i}`` when an off-diagonal entry is not 0);
* a joint's armature (reflected rotor inertia, M_ii += I_a): ``Ia{i}``;
* gravity g (its magnitude) times the exact unit direction of the spec's vector.

Joint damping and friction are not part of M, C, G and are not written here.

The spec is read by attribute (``convention.value``, ``joints[i].dh/xyz/rpy/axis/type.value``, ``links[i].mass/
com/inertia`` (ixx, ixy, ixz, iyy, iyz, izz), ``base_xyz``, ``base_rpy``, ``gravity``, ``name``), so this module
does not import the spec's.
"""
from __future__ import annotations

import math

import sympy as sp

from crossdyn.analytic.spatial_arm import LinkInertia, SymArm, SymJoint, rot, trans


def exact_angle(x: float) -> sp.Expr:
    """A float angle as an exact multiple of π when it is one to 1e-12 (π/2, −π/3, …), else a rational."""
    x = float(x)
    if x == 0.0:
        return sp.Integer(0)
    r = sp.nsimplify(x / math.pi, rational=True, tolerance=1e-12)
    if abs(float(r) * math.pi - x) <= 1e-12 and r.q <= 24:
        return r * sp.pi
    return sp.nsimplify(x, rational=True)


def _rpy(rpy) -> sp.Matrix:
    r, p, y = (exact_angle(v) for v in rpy)
    return rot((0, 0, 1), y) * rot((0, 1, 0), p) * rot((1, 0, 0), r)


def _sym(name: str, value: float, values: dict):
    if float(value) == 0.0:
        return 0
    values[name] = float(value)
    return name


def _exact_unit(v) -> tuple:
    exact = [sp.nsimplify(float(x), rational=True, tolerance=1e-12) for x in v]
    norm = sp.sqrt(sum(x * x for x in exact))
    return tuple(sp.nsimplify(x / norm) for x in exact)


def _dh_joint(conv: str, i: int, row, kind: str, values: dict) -> tuple[sp.Matrix, sp.Matrix]:
    cols = ("alpha", "a", "d", "theta") if conv == "dh-modified" else ("a", "alpha", "d", "theta")
    r = dict(zip(cols, (float(v) for v in row), strict=True))
    a = _sym(f"a{i}", r["a"], values)
    d = _sym(f"o{i}" if kind == "prismatic" else f"d{i}", r["d"], values)
    alpha, theta = exact_angle(r["alpha"]), exact_angle(r["theta"])
    if conv == "dh-standard":
        return rot((0, 0, 1), theta), trans(0, 0, d) * trans(a, 0, 0) * rot((1, 0, 0), alpha)
    return rot((1, 0, 0), alpha) * trans(a, 0, 0) * rot((0, 0, 1), theta), trans(0, 0, d)


def _link(i: int, link, values: dict) -> LinkInertia:
    values[f"m{i}"] = float(link.mass)
    com = tuple(c for c, v in zip(("cx", "cy", "cz"), link.com, strict=True) if float(v) != 0.0)
    for c, v in zip(("cx", "cy", "cz"), link.com, strict=True):
        if float(v) != 0.0:
            values[f"{c}{i}"] = float(v)
    six = dict(zip(("Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz"), (float(v) for v in link.inertia), strict=True))
    full = any(six[k] != 0.0 for k in ("Ixy", "Ixz", "Iyz"))
    kind = "full" if full else ("diagonal" if any(six.values()) else "none")
    for k, v in six.items():
        if kind == "full" or (kind == "diagonal" and k in ("Ixx", "Iyy", "Izz")):
            values[f"{k}{i}"] = v
    return LinkInertia(com, kind)


def sym_arm(spec) -> tuple[SymArm, dict]:
    """(the arm with symbols, {symbol name: the spec's number}) — see the module docstring."""
    conv = spec.convention.value
    values: dict = {}
    base = trans(*(_sym(f"{c}0", v, values) for c, v in zip("xyz", spec.base_xyz, strict=True))) * _rpy(spec.base_rpy)
    joints = []
    for i, (j, link) in enumerate(zip(spec.joints, spec.links, strict=True), start=1):
        kind = j.type.value
        if conv == "origin":
            xyz = (_sym(f"{c}{i}", v, values) for c, v in zip("xyz", j.xyz, strict=True))
            A, B, axis = trans(*xyz) * _rpy(j.rpy), sp.eye(4), _exact_unit(j.axis)
        else:
            (A, B), axis = _dh_joint(conv, i, j.dh, kind, values), (0, 0, 1)
        if i == 1:
            A = base * A
        armature = float(getattr(j, "armature", 0.0) or 0.0)
        if armature:
            values[f"Ia{i}"] = armature
        joints.append(SymJoint(kind, axis, A, B, _link(i, link, values), armature=bool(armature)))
    g = [float(v) for v in spec.gravity]
    norm = math.sqrt(sum(v * v for v in g))
    if norm > 0.0:
        values["g"] = norm
        gravity = tuple(sp.Symbol("g", positive=True) * u for u in _exact_unit(g))
    else:
        gravity = (0, 0, 0)
    info = f"{spec.name}: {conv} convention"
    return SymArm(spec.name, tuple(joints), gravity, info), values
