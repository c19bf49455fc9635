"""The model diff of two files of one robot: every parameter of every matched body and joint side by side in the
world frame at q = 0 (:func:`crossdyn.audit.match.world_frames`), each difference judged against the tolerance
:class:`~crossdyn.audit.result.Tolerances` states (and :data:`~crossdyn.audit.result.TOLERANCE_SOURCES` justifies).

Rows per matched pair: mass; CoM (world, distance); inertia about the CoM (world axes, largest entry difference
over the body's largest principal moment); joint type; axis (angle); anchor (distance of b's axis line from a's);
lower and upper limit; effort; velocity; damping; friction; armature; gear; and, for a joint whose axis points
the opposite way in B, "axis direction" (q of B is −q of A: a difference, FAIL, unless matched by sign).  A joint parameter given in one file
and absent (None) or at its neutral value (0; gear 1) in the other is "only in A" / "only in B".
"""
from __future__ import annotations

import numpy as np

from crossdyn.audit.match import WorldBody, world_frames
from crossdyn.audit.result import FileDiff, Matching, ParamRow, Tolerances
from crossdyn.robots.formats import FORMATS, Format
from crossdyn.robots.model import Joint, RobotModel

FORMAT_GAPS = {row.format: row.gaps for row in FORMATS if row.gaps}
"""Joint parameters a format cannot express (its row's ``gaps``): MJCF has no joint velocity limit."""

FORMAT_REQUIRES = {row.format: row.requires for row in FORMATS if row.requires}
"""Joint parameters a format cannot leave out (its row's ``requires``): a URDF revolute or prismatic joint must state
an effort and a velocity limit (urdfdom's rule), so a URDF's effort facing a file that states none may be the
writer's stand-in for "no limit" (crossdyn's own URDF writer writes 1e9) rather than a limit the robot has."""

JOINT_SCALARS = (("effort", "N m or N", None), ("velocity", "rad/s or m/s", None), ("damping", "N m s/rad", 0.0),
                 ("friction", "N m or N", 0.0), ("armature", "kg m² or kg", 0.0), ("gear", "", 1.0))
"""Joint parameters compared by value: (attribute, unit, neutral value meaning "not given")."""


def _row(element: str, parameter: str, a, b, diff: float, tol: float, unit: str = "",
         scaled: tuple[float, str] = (0.0, "")) -> ParamRow:
    """A compared row; ``scaled`` (scale, its name), scale > 0: the difference is also given relative to it."""
    scale, scale_words = scaled
    rel = float(diff) / scale if scale > 0 else None
    return ParamRow(element, parameter, a, b, float(diff), float(tol), "differs" if diff > tol else "same", unit,
                    rel, scale_words if rel is not None else "")


def body_rows(name: str, wa: WorldBody, wb: WorldBody, tol: Tolerances) -> list[ParamRow]:
    """Mass, CoM and inertia of one matched body, world frame at q = 0."""
    scale = float(max(np.linalg.eigvalsh(wa.inertia).max(), np.linalg.eigvalsh(wb.inertia).max(), 0.0))
    heavier = max(wa.mass, wb.mass)
    d_inertia = float(np.abs(wa.inertia - wb.inertia).max())
    return [
        _row(name, "mass", wa.mass, wb.mass, abs(wa.mass - wb.mass), tol.mass_rel * heavier, "kg",
             (heavier, "the larger mass")),
        _row(name, "CoM (world)", wa.com, wb.com, float(np.linalg.norm(wa.com - wb.com)), tol.position_m, "m"),
        _row(name, "inertia about CoM (world)", wa.inertia, wb.inertia, d_inertia, tol.inertia_rel * scale,
             "kg m²", (scale, "the largest principal moment")),
    ]


def _line_distance(wa: WorldBody, wb: WorldBody) -> float:
    """Distance of b's joint anchor from a's joint axis line (the same axis may be anchored anywhere on it)."""
    d = wb.anchor - wa.anchor
    return float(np.linalg.norm(d - (d @ wa.axis) * wa.axis))


def _presence(value, neutral) -> bool:
    return value is not None and (neutral is None or value != neutral)


def scalar_row(element: str, attr: str, a, b, neutral, tol: float, unit: str) -> ParamRow:
    """A joint scalar: "only in A/B" when given in one file only, else relative to the larger of the two."""
    has_a, has_b = _presence(a, neutral), _presence(b, neutral)
    if has_a != has_b:
        return ParamRow(element, attr, a, b, None, None, "only in A" if has_a else "only in B", unit)
    if not has_a:
        return ParamRow(element, attr, a, b, 0.0, 0.0, "same", unit)
    diff = abs(float(a) - float(b))
    return _row(element, attr, a, b, diff, tol * max(abs(float(a)), abs(float(b))), unit)


def limit_row(element: str, attr: str, a, b, sign: float, tol: float) -> ParamRow:
    """A position limit; with the axes opposite (sign −1), b's lower limit is compared with −(a's upper)."""
    if (a is None) != (b is None):
        return ParamRow(element, attr, a, b, None, None, "only in A" if a is not None else "only in B", "rad or m")
    if a is None:
        return ParamRow(element, attr, a, b, 0.0, 0.0, "same", "rad or m")
    return _row(element, attr, a, b, abs(sign * float(a) - float(b)), tol, "rad or m")


def format_gap(row: ParamRow, fa: Format, fb: Format) -> ParamRow:
    """A row "only in A/B" whose parameter the other file's format cannot express becomes "not in B's/A's
    format" (:data:`FORMAT_GAPS`); one whose file's format cannot leave it out, facing a format that can, becomes
    "required by A's/B's format" (:data:`FORMAT_REQUIRES`).  Both are called out, not failed: neither limit enters
    the dynamics compared."""
    from dataclasses import replace

    if row.status == "only in A" and row.parameter in FORMAT_GAPS.get(fb, ()):
        return replace(row, status="not in B's format")
    if row.status == "only in B" and row.parameter in FORMAT_GAPS.get(fa, ()):
        return replace(row, status="not in A's format")
    if row.status == "only in A" and row.parameter in FORMAT_REQUIRES.get(fa, frozenset()) - FORMAT_REQUIRES.get(fb, frozenset()):
        return replace(row, status="required by A's format")
    if row.status == "only in B" and row.parameter in FORMAT_REQUIRES.get(fb, frozenset()) - FORMAT_REQUIRES.get(fa, frozenset()):
        return replace(row, status="required by B's format")
    return row


REVERSED = "axis direction"
"""The row of a joint whose axis points the opposite way in the other file (present only for such joints)."""
SIGN_MATCHED = "matched by sign"
"""Its status when the user asked to match joints by sign (``--match-sign``): called out, not failed."""


def reversed_row(element: str, wa: WorldBody, wb: WorldBody, match_sign: bool) -> ParamRow:
    """A joint whose world axis points the opposite way in file B: q of B is −q of A (and so are its q̇, q̈, τ and
    limits).  "differs" (FAIL: the files describe the joint's positive direction differently, which a controller
    or a trajectory written for one file gets wrong in the other) unless the user asked to match by sign."""
    return ParamRow(element, REVERSED, wa.axis, wb.axis, None, None, SIGN_MATCHED if match_sign else "differs")


def joint_rows(element: str, ja: Joint, jb: Joint, wa: WorldBody, wb: WorldBody, sign: float,
               tol: Tolerances, match_sign: bool = False) -> list[ParamRow]:
    """Type, axis (and its direction where reversed), anchor, limits and every joint scalar of one matched joint;
    the axis, the limits and the dynamics are compared through q_B = sign · q_A."""
    angle = float(np.arccos(np.clip(abs(float(wa.axis @ wb.axis)), -1.0, 1.0)))
    rows = [
        ParamRow(element, "joint type", ja.type.value, jb.type.value, None, None,
                 "same" if ja.type == jb.type else "differs"),
        _row(element, "joint axis (world)", wa.axis, wb.axis * sign, angle, tol.axis_rad, "rad"),
        *([reversed_row(element, wa, wb, match_sign)] if sign < 0 else []),
        _row(element, "joint anchor (world)", wa.anchor, wb.anchor, _line_distance(wa, wb), tol.position_m, "m"),
    ]
    lower_b, upper_b = (jb.lower, jb.upper) if sign > 0 else (jb.upper, jb.lower)
    rows.append(limit_row(element, "lower limit", ja.lower, lower_b, sign, tol.limit))
    rows.append(limit_row(element, "upper limit", ja.upper, upper_b, sign, tol.limit))
    for attr, unit, neutral in JOINT_SCALARS:
        rows.append(scalar_row(element, attr, getattr(ja, attr), getattr(jb, attr), neutral, tol.joint_rel, unit))
    return rows


def diff_files(a: RobotModel, b: RobotModel, matching: Matching, tol: Tolerances,
               match_sign: bool = False) -> FileDiff:
    """Every parameter of the matched bodies of ``a`` and ``b`` side by side (see the module docstring);
    ``match_sign``: a reversed joint axis is called out, not a difference."""
    wa, wb = world_frames(a), world_frames(b, matching.turn)
    rows: list[ParamRow] = []
    for m in matching.pairs:
        element = m.name_a if m.name_a == m.name_b else f"{m.name_a} / {m.name_b}"
        rows += body_rows(element, wa[m.a], wb[m.b], tol)
        joint = (a.joints[m.a].name if a.joints[m.a].name == b.joints[m.b].name
                 else f"{a.joints[m.a].name} / {b.joints[m.b].name}")
        rows += [format_gap(r, a.format, b.format) for r in
                 joint_rows(f"joint {joint}", a.joints[m.a], b.joints[m.b], wa[m.a], wb[m.b], m.sign, tol,
                            match_sign)]
    rows += [ParamRow(name, "body", name, None, None, None, "only in A") for name in matching.only_a]
    rows += [ParamRow(name, "body", None, name, None, None, "only in B") for name in matching.only_b]
    rows.append(_row("robot", "gravity", a.gravity, b.gravity, float(np.linalg.norm(a.gravity - b.gravity)),
                     tol.mass_rel * float(np.linalg.norm(a.gravity)), "m/s²"))
    return FileDiff(a.source, b.source, matching, tuple(rows))
