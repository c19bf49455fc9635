"""Physical checks on a robot file's inertials: pure functions returning :class:`~crossdyn.robots.model.Note` s.

Both readers (URDF, MJCF) call them on each body's inertial as the file writes it, before merging:

* :func:`inertial_notes` — one body: mass 0 with a nonzero inertia, or principal moments off the triangle
  inequality (AMBIGUOUS: no rigid body has them and engines read them differently, the readings in
  :mod:`crossdyn.robots.ambiguity`), a principal moment ≤ 0 (SUSPECT).
* :func:`placeholder_notes` — the same isotropic inertia diag(a, a, a) on several bodies (SUSPECT: a placeholder,
  as in the ``pybullet_data`` Panda, where every link has diag(0.1)).
* :func:`model_notes` — the assembled model: a joint that moves nothing with mass or inertia (SUSPECT: M(q) is
  singular there).

The rules and their tolerances:

* Principal moments I1 ≤ I2 ≤ I3 are the eigenvalues of the symmetric 3×3 inertia about the centre of mass.  A
  moment counts as negative below −:data:`RELATIVE_TOL` · max(|I|) and as zero within it.
* Triangle inequality I1 + I2 ≥ I3 (every rigid mass distribution satisfies it; equality for a flat body), tested
  as I1 + I2 ≥ I3 · (1 − :data:`RELATIVE_TOL`).
* :data:`RELATIVE_TOL` = 1e-6: files print inertias to about 6–12 significant digits, so a flat body (a disc,
  I1 + I2 = I3 exactly) written to 7 digits can miss equality by a few 1e-7 relative; float64 rounding of the
  eigenvalues (~1e-16 relative) is far below it.  A body off by more than 1e-6 of its largest moment is not a
  printing artefact.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from crossdyn.robots.model import Inertial, Note, RobotModel, Severity

RELATIVE_TOL = 1e-6
"""Relative tolerance of the sign and triangle checks on principal moments (see the module docstring)."""

PLACEHOLDER_MIN_BODIES = 3
"""An isotropic inertia diag(a, a, a) repeated on at least this many bodies is reported as a placeholder."""


def fmt(x: float) -> str:
    """A number as the files print it: shortest form that round-trips, no trailing zeros (``0.1``, ``2.7e-05``)."""
    return repr(float(x)) if abs(x) >= 1e-4 or x == 0 else f"{x:.6g}"


def inertia_text(inertia: np.ndarray) -> str:
    """``diag(a, b, c)`` for a diagonal inertia, else ``[ixx, iyy, izz, ixy, ixz, iyz]``, in kg m²."""
    I = np.asarray(inertia, dtype=float)
    if not np.any(I - np.diag(np.diag(I))):
        return f"diag({', '.join(fmt(v) for v in np.diag(I))})"
    vals = (I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2])
    return "[ixx, iyy, izz, ixy, ixz, iyz] = [" + ", ".join(fmt(v) for v in vals) + "]"


def principal_moments(inertia: np.ndarray) -> np.ndarray:
    """The principal moments I1 ≤ I2 ≤ I3 (eigenvalues of the symmetric part of the 3×3 inertia)."""
    I = np.asarray(inertia, dtype=float)
    return np.linalg.eigvalsh(0.5 * (I + I.T))


def inertial_notes(where: str, inertial: Inertial) -> list[Note]:
    """What is questionable about one body's inertial as the file writes it (``where`` names the body)."""
    notes: list[Note] = []
    I = inertial.inertia
    scale = float(np.max(np.abs(I))) if I.size else 0.0
    if inertial.mass == 0.0 and scale > 0.0:
        notes.append(Note(where, f"mass 0 with inertia {inertia_text(I)} kg m²: engines differ (MuJoCo's URDF "
                                 "importer drops the inertia of a massless body; Pinocchio and PyBullet keep it; "
                                 "Drake's URDF parser puts a 1 kg sphere of water density in its place); "
                                 "crossdyn keeps it, as Pinocchio does", Severity.AMBIGUOUS))
    if scale == 0.0:
        return notes
    m1, m2, m3 = principal_moments(I)
    tol = RELATIVE_TOL * scale
    if m1 < -tol:
        notes.append(Note(where, f"inertia {inertia_text(I)} kg m² has a negative principal moment "
                                 f"({fmt(m1)}): no mass distribution has one", Severity.SUSPECT))
    elif m1 <= tol and inertial.mass > 0.0:
        notes.append(Note(where, f"inertia {inertia_text(I)} kg m² has a principal moment 0 (moments "
                                 f"{fmt(m1)}, {fmt(m2)}, {fmt(m3)}): a thin rod or a point, with mass "
                                 f"{fmt(inertial.mass)} kg", Severity.SUSPECT))
    if m1 >= -tol and m1 + m2 < m3 * (1.0 - RELATIVE_TOL):
        notes.append(Note(where, f"inertia {inertia_text(I)} kg m² violates the triangle inequality: principal "
                                 f"moments {fmt(m1)} + {fmt(m2)} < {fmt(m3)} (relative tolerance "
                                 f"{RELATIVE_TOL:g}); no rigid body has these moments, and engines differ "
                                 "(PyBullet zeroes the inertia, Drake's URDF parser puts a sphere of water density "
                                 "and the link's mass in its place, MuJoCo refuses it); crossdyn keeps it as "
                                 "written, as Pinocchio does", Severity.AMBIGUOUS))
    return notes


def placeholder_notes(inertials: Sequence[tuple[str, Inertial]], kind: str = "links") -> list[Note]:
    """One SUSPECT note per isotropic inertia diag(a, a, a), a > 0, written identically on at least
    :data:`PLACEHOLDER_MIN_BODIES` bodies (``inertials``: (name, inertial) as the file writes them)."""
    groups: dict[float, list[str]] = {}
    for name, inertial in inertials:
        I = inertial.inertia
        a = float(I[0, 0])
        if a > 0.0 and np.array_equal(I, a * np.eye(3)):
            groups.setdefault(a, []).append(name)
    notes = []
    for a, names in groups.items():
        if len(names) >= PLACEHOLDER_MIN_BODIES:
            notes.append(Note(f"<inertia> of {len(names)} {kind}", f"placeholder inertia diag({fmt(a)}) on {len(names)} "
                              f"{kind} ({', '.join(names)}): the same inertia whatever the mass and shape",
                              Severity.SUSPECT))
    return notes


def model_notes(model: RobotModel) -> list[Note]:
    """A SUSPECT note for each joint whose subtree has neither mass nor inertia: nothing resists its
    acceleration, so the mass matrix M(q) is singular and forward dynamics undefined."""
    return [Note(f"joint '{model.joints[i].name}'", f"moves body '{model.bodies[i].name}' and its children, which "
                 "have neither mass nor inertia: M(q) is singular", Severity.SUSPECT)
            for i in massless_joints(model)]


def massless_joints(model: RobotModel) -> list[int]:
    """The joints whose subtree has neither mass nor inertia (nothing resists their acceleration): M(q) has a zero
    row and column there, whatever q (:func:`model_notes` names each)."""
    heavy = [b.inertial.mass > 0.0 or bool(np.any(b.inertial.inertia)) for b in model.bodies]
    for i in range(model.n - 1, -1, -1):
        p = model.parents[i]
        if p >= 0 and heavy[i]:
            heavy[p] = True
    return [i for i in range(model.n) if not heavy[i]]


DEFAULT_INERTIAL_ENGINES = "PyBullet and DART read each such link as 1 kg with unit inertia (their default)"
"""What engines make of a URDF link without ``<inertial>`` (PyBullet's warning says it; DART likewise, measured)."""


def bare_links(model: RobotModel) -> list[str]:
    """The moving links (bodies, or links welded into one) the file writes without ``<inertial>`` (the readers'
    notes "no <inertial>…" name them)."""
    names = {n for b in model.bodies for n in (b.name, *b.merged)}
    return [m.group(1) for note in model.notes if note.message.startswith("no <inertial>")
            for m in [re.match(r"(?:link|body) '([^']+)'", note.where)] if m and m.group(1) in names]


def singular_mass_message(model: RobotModel) -> str | None:
    """Why ``model``'s mass matrix M(q) is singular — the file, the joints moving nothing with mass, the links
    written without ``<inertial>`` among their bodies, and how engines fill them in — or None when every joint
    moves some mass or inertia.  Forward dynamics q̈ = M⁻¹(τ − C q̇ − G) is then undefined: ``compare`` and
    ``audit`` exit 2 with this message instead of a traceback."""
    idle = massless_joints(model)
    if not idle:
        return None
    bare = bare_links(model)
    joints = ", ".join(model.joints[i].name for i in idle)
    text = (f"{model.source}: M(q) is singular: joint(s) {joints} move no mass or inertia, so forward dynamics is "
            "undefined")
    if bare:
        text += f"; the links without <inertial> ({', '.join(bare)}) carry no mass as the file is written"
        if model.format.value == "urdf":
            text += f", where {DEFAULT_INERTIAL_ENGINES}, not what the file says"
    return text + "; give each moving link an <inertial> (mass and inertia) to compare it"
