"""Naming the parameter behind a difference, the way ``check`` names a wrong term.

Two files (:func:`explain_files`): file B's values of one group of parameters — the armature of every joint, every
body's mass, CoM, inertia — are put into file A (in A's body frames, through the world frame at q = 0) and A is
re-evaluated with crossdyn's reference; the smallest set of groups after which A's M, G, C·q̇ or ID agrees with B's
within the files' tolerance explains that difference ("armature 0.1 on all 7 joints explains the whole M
difference").  Where no set does, the share all differing groups together explain is given and the rest is left to the
kinematics (joint frames, axes), whose rows the file diff lists.

An engine (:func:`explain_engine`): hypotheses re-evaluated with the reference, in this order — the joint axes the
engine reports holding (its ``config()['joint_axes_read']``, where it has one); the armature ignored; each
combination of the readings the file's ambiguity record lists (:mod:`crossdyn.robots.ambiguity`: a massless link
with an inertia kept, dropped or read as Drake's sphere; an inertia off the triangle inequality kept, zeroed or read
as Drake's sphere — the words ``compare`` uses too); a body the reader's notes call ambiguous (a massless body with an inertia) read with another mass, CoM and inertia; every body's
inertia read otherwise with masses and CoMs kept (PyBullet without ``URDF_USE_INERTIA_FROM_FILE`` computes inertias
from the collision shapes); one body's mass, CoM and inertia read otherwise.  Inverse dynamics is linear in each
body's mass m, first moment m·c and inertia about its frame's origin (:func:`body_params`), so the change a
hypothesis needs is fitted by linear least squares on the engine's ID at a subset of the states
(:data:`FIT_STATES`); the hypothesis holds when, with the fitted change, every differing quantity agrees within the
engine tolerance.  The status says what the cause means: ``ambiguous`` (the file allows both readings: not judged,
INCONCLUSIVE), ``by design`` (the engine's documented default, asked for by name: shown, not judged), else
``differs`` (a real departure: FAIL, with the cause named).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import replace
from typing import Callable

import numpy as np

from crossdyn.audit.enginediff import States, reference, relative
from crossdyn.audit.match import world_frames
from crossdyn.audit.result import AMBIGUOUS, BY_DESIGN, DIFFERS, DynamicsCheck, FileDiff, Matching
from crossdyn.robots.ambiguity import ambiguity_words, choice_words, combinations, with_readings
from crossdyn.robots.checks import bare_links
from crossdyn.robots.model import Body, Inertial, RobotModel, Severity

FIT_STATES = 64
"""States used by the explanations (the first of the audit's states): enough equations (64 × n) for the 6n
unknowns of the largest hypothesis."""

GROUPS = ("armature", "mass", "CoM", "inertia")
AFFECTS = {"M": ("armature", "mass", "CoM", "inertia"), "G": ("mass", "CoM"), "C·q̇": ("mass", "CoM", "inertia"),
           "ID": ("armature", "mass", "CoM", "inertia")}
"""Which parameter groups each quantity depends on."""
ROW_OF = {"armature": "armature", "mass": "mass", "CoM": "CoM (world)", "inertia": "inertia about CoM (world)"}
INERTIA_BASIS = [np.diag([1.0, 0, 0]), np.diag([0, 1.0, 0]), np.diag([0, 0, 1.0]),
                 np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]]), np.array([[0, 0, 1.0], [0, 0, 0], [1.0, 0, 0]]),
                 np.array([[0, 0, 0], [0, 0, 1.0], [0, 1.0, 0]])]


def subset(s: States, k: int = FIT_STATES) -> States:
    return States(s.Q[:k], s.QD[:k], s.QDD[:k], s.description)


# ---- two files --------------------------------------------------------------------------------------------------
def transplant(a: RobotModel, b: RobotModel, matching: Matching, groups: tuple[str, ...]) -> RobotModel:
    """``a`` with ``b``'s values of ``groups`` on the matched bodies, in ``a``'s body frames (through the world
    frame at q = 0: c_a = R_aᵀ (c_w,b − p_a), I_a = R_aᵀ I_w,b R_a)."""
    wa, wb = world_frames(a), world_frames(b, matching.turn)
    bodies, joints = list(a.bodies), list(a.joints)
    for m in matching.pairs:
        ia, A, B = a.bodies[m.a].inertial, wa[m.a], wb[m.b]
        mass = B.mass if "mass" in groups else ia.mass
        com = A.R.T @ (B.com - A.p) if "CoM" in groups else ia.com
        inertia = A.R.T @ B.inertia @ A.R if "inertia" in groups else ia.inertia
        bodies[m.a] = replace(a.bodies[m.a], inertial=Inertial(mass, com, inertia))
        if "armature" in groups:
            joints[m.a] = replace(a.joints[m.a], armature=b.joints[m.b].armature)
    return replace(a, bodies=tuple(bodies), joints=tuple(joints))


def group_words(diff: FileDiff, group: str, n: int) -> str:
    """"armature 0.1 on all 7 joints", "masses of 6 of 7 links", "the inertia of wrist_1_link"."""
    rows = [r for r in diff.differing if r.parameter == ROW_OF[group]]
    k = len(rows)
    if group == "armature":
        values = {float(np.asarray(r.value_b)) for r in rows}
        where = f"all {n} joints" if k == n else f"{k} of {n} joints"
        return f"armature {values.pop():g} on {where}" if len(values) == 1 else f"armature on {where}"
    plural = {"mass": "masses", "CoM": "CoMs", "inertia": "inertias"}[group]
    if k == 1:
        return f"the {group} of {rows[0].element}"
    return f"{plural} of {'all ' + str(n) if k == n else f'{k} of {n}'} links"


def explain_files(a: RobotModel, b: RobotModel, diff: FileDiff, checks: list[DynamicsCheck],
                  ref_b_in_a: Callable[[RobotModel], dict]) -> list[DynamicsCheck]:
    """``checks`` (A against B) with an explanation on each that differs (see the module docstring).
    ``ref_b_in_a(model)``: a model's reference at the fit states, compared with B's mapped into A's order, as
    {quantity: (max_rel, …)} (a closure of the run)."""
    differing = {g for g in GROUPS if any(r.parameter == ROW_OF[g] for r in diff.differing)}
    cache: dict[tuple, dict] = {}

    def residual(groups: tuple[str, ...]) -> dict:
        if groups not in cache:
            cache[groups] = ref_b_in_a(transplant(a, b, diff.matching, groups))
        return cache[groups]

    before = ref_b_in_a(a)
    out = []
    for c in checks:
        if c.status != DIFFERS:
            out.append(c)
            continue
        out.append(replace(c, explanation=_explain_one(c, [g for g in GROUPS if g in differing and g in AFFECTS[
            c.quantity]], residual, before, diff, a.n)))
    return out


def combined_words(diff: FileDiff, groups: tuple[str, ...], n: int) -> str:
    """Several groups in one phrase, those with the same count joined: "armature 0.1 on all 6 joints and masses
    and CoMs of all 6 links and inertias of 4 of 6 links"."""
    by_tail: dict[str, list[str]] = {}
    for g in groups:
        words = group_words(diff, g, n)
        head, sep, tail = words.partition(" of ")
        if words.startswith(("armature", "the ")) or not sep:
            by_tail[words] = []
        else:
            by_tail.setdefault(tail, []).append(head)
    parts = [tail if not heads else (", ".join(heads[:-1]) + " and " + heads[-1] if len(heads) > 1 else heads[0])
             + " of " + tail for tail, heads in by_tail.items()]
    return " and ".join(parts)


def _explain_one(c: DynamicsCheck, groups: list[str], residual, before, diff: FileDiff, n: int) -> str:
    for size in range(1, len(groups) + 1):
        for combo in itertools.combinations(groups, size):
            if residual(tuple(combo))[c.quantity] <= c.tolerance:
                words = combined_words(diff, combo, n)
                singular = size == 1 and not words.startswith(("masses", "CoMs", "inertias"))
                return f"{words} explain{'s' if singular else ''} the whole {c.quantity} difference"
    if not groups:
        return (f"no mass, CoM, inertia or armature differs: the joint frames or axes do (see the parameter rows); "
                f"{c.quantity} differs by {c.size_text()}")
    full = residual(tuple(groups))[c.quantity]
    share = 1.0 - full / before[c.quantity] if before[c.quantity] > 0 else 0.0
    words = combined_words(diff, tuple(groups), n)
    return (f"{words} explain {100 * share:.1f} % of the largest {c.quantity} difference; the rest "
            f"({full:.3g} of its largest entry) comes from the joint frames or axes (see the parameter rows)")


# ---- an engine ---------------------------------------------------------------------------------------------------
def with_inertial(model: RobotModel, k: int, d_mass: float = 0.0, d_inertia=None) -> RobotModel:
    """``model`` with body ``k``'s mass changed by ``d_mass`` (CoM kept) and its inertia about the CoM by
    ``d_inertia`` (body frame)."""
    old = model.bodies[k].inertial
    new = Inertial(old.mass + d_mass, old.com, old.inertia + (0 if d_inertia is None else d_inertia))
    return _with_body(model, k, new)


def _with_body(model: RobotModel, k: int, inertial: Inertial) -> RobotModel:
    bodies = list(model.bodies)
    bodies[k] = Body(model.bodies[k].name, inertial, model.bodies[k].merged)
    return replace(model, bodies=tuple(bodies))


def body_params(b: Inertial) -> np.ndarray:
    """The 10 parameters inverse dynamics is linear in: mass m, first moment h = m c, and the inertia about the
    body frame's origin I_o = I_c + m (|c|² 1 − c cᵀ) (xx, yy, zz, xy, xz, yz)."""
    I_o = b.about_origin()
    return np.array([b.mass, *(b.mass * b.com), I_o[0, 0], I_o[1, 1], I_o[2, 2], I_o[0, 1], I_o[0, 2], I_o[1, 2]])


def from_params(pi: np.ndarray) -> Inertial:
    """:func:`body_params` inverted (a massless body: CoM at the origin, I_c = I_o)."""
    m, h = float(pi[0]), pi[1:4]
    I_o = sum(x * E for x, E in zip(pi[4:], INERTIA_BASIS, strict=True))
    if m == 0.0:
        return Inertial(0.0, np.zeros(3), I_o)
    c = h / m
    return Inertial(m, c, I_o - m * (float(c @ c) * np.eye(3) - np.outer(c, c)))


def with_params(model: RobotModel, k: int, d_pi: np.ndarray) -> RobotModel:
    """``model`` with body ``k``'s 10 parameters (:func:`body_params`) changed by ``d_pi``."""
    return _with_body(model, k, from_params(body_params(model.bodies[k].inertial) + d_pi))


def fit(model: RobotModel, s: States, target_id: np.ndarray, params: list[tuple[int, int]]) -> RobotModel:
    """The model with the changes ``params`` ((body, index into :func:`body_params`)) fitted by least squares so
    that its ID matches ``target_id`` at ``s`` (ID is linear in each: one reference evaluation per column)."""
    import crossdyn.spatial as spatial

    base = np.asarray(spatial.rnea(model, s.Q, s.QD, s.QDD))
    cols = []
    for k, e in params:
        unit = np.zeros(10)
        unit[e] = 1.0
        cols.append((np.asarray(spatial.rnea(with_params(model, k, unit), s.Q, s.QD, s.QDD)) - base).ravel())
    coef = np.linalg.lstsq(np.array(cols).T, (target_id - base).ravel(), rcond=None)[0]
    changes: dict[int, np.ndarray] = {}
    for (k, e), x in zip(params, coef, strict=True):
        changes.setdefault(k, np.zeros(10))[e] += x
    fitted = model
    for k, d_pi in changes.items():
        fitted = with_params(fitted, k, d_pi)
    return fitted


def change_words(old: Inertial, new: Inertial) -> str:
    """What a fitted change did to one body: mass, CoM, inertia about the CoM (body frame), each where it moved."""
    parts = []
    if abs(new.mass - old.mass) > 1e-9 * max(old.mass, 1.0):
        parts.append(f"mass {old.mass:.6g} → {new.mass:.6g} kg")
    if np.linalg.norm(new.com - old.com) > 1e-9:
        parts.append(f"CoM moved by {matrix_text(new.com - old.com)} m")
    if np.abs(new.inertia - old.inertia).max() > 1e-9 * max(np.abs(old.inertia).max(), 1e-9):
        parts.append(f"inertia about the CoM changed by {matrix_text(new.inertia - old.inertia)} kg m²")
    return ", ".join(parts) or "no change"


def noted_bodies(model: RobotModel) -> list[tuple[int, str]]:
    """(body index, the element named) for each reader's note of severity ``ambiguous`` that names a body or a body
    merged into one (a quoted name in the note's ``where`` or message)."""
    out = []
    for note in model.notes:
        if note.severity is not Severity.AMBIGUOUS:
            continue
        names = re.findall(r"['\"]([^'\"]+)['\"]", note.where + " " + note.message)
        for k, body in enumerate(model.bodies):
            hit = [x for x in names if x in {body.name, *body.merged}]
            if hit:
                out.append((k, hit[0]))
                break
    return out


def _agrees(model: RobotModel, s: States, values: dict, quantities: list[str], tol: float | dict) -> bool:
    ref = reference(model, s)
    return all(relative(ref[q], values[q])[0] <= (tol[q] if isinstance(tol, dict) else tol) for q in quantities)


ROTATIONAL = range(4, 10)
ALL = range(10)


def default_inertials(model: RobotModel, bare: list[str]) -> RobotModel:
    """``model`` with 1 kg and unit inertia, centred at the body frame's origin, added to each body named in
    ``bare`` (what PyBullet — its warning: "No inertial data for link, using mass=1, localinertiadiagonal = 1,1,1,
    identity local inertial frame" — and DART make of a link without ``<inertial>``)."""
    unit = Inertial(1.0, np.zeros(3), np.eye(3))
    for k, body in enumerate(model.bodies):
        if body.name in bare:
            model = _with_body(model, k, body.inertial.plus(unit))
    return model


def engine_hypotheses(model: RobotModel, engine: str):
    """(status, words, how, params) per hypothesis, in the order tried (see the module docstring)."""
    n = model.n
    if np.any(model.armature() != 0):
        yield DIFFERS, "it ignores the armature (M without the file's armature agrees)", "no-armature", None
    bare = [name for name in bare_links(model) if name in model.body_names]
    if bare:
        yield (BY_DESIGN, f"it reads the links without <inertial> ({', '.join(bare)}) as 1 kg with unit inertia at "
               "the link frame's origin (its default; the file, as URDF and MJCF define it, gives them no mass)",
               "defaults", bare)
    for choice in combinations(model.ambiguities):
        yield (AMBIGUOUS, f"it reads {choice_words(choice)}, where {ambiguity_words(choice)}", "model",
               with_readings(model, choice))
    whys: dict[int, list[str]] = {}
    for k, why in noted_bodies(model):
        whys.setdefault(k, []).append(why)
    for k, why_list in whys.items():
        yield (AMBIGUOUS, f"it reads '{model.bodies[k].name}' otherwise, where the file is ambiguous (the reader's "
               f"notes on {', '.join(dict.fromkeys(why_list))})", "fit", [(k, e) for e in ALL])
    words = "the inertias of the bodies differ (masses and CoMs as the file gives them)"
    inertias = [(k, e) for k in range(n) for e in ROTATIONAL]
    if engine.startswith("pybullet-noflag"):
        yield BY_DESIGN, words + ": PyBullet without URDF_USE_INERTIA_FROM_FILE (its default) computes inertias " \
                                 "from the collision shapes", "fit", inertias
    else:
        yield DIFFERS, words, "fit", inertias
    for k in range(n):
        yield DIFFERS, f"it reads '{model.bodies[k].name}' otherwise", "fit", [(k, e) for e in ALL]


def armature_read(model: RobotModel, config: dict | None) -> tuple[RobotModel, str] | None:
    """The model with the armature the engine reports holding (its config's ``armature``, joint → kg m²) and the
    words naming where it differs from the file's (Genesis's ``default_armature`` 0.1); None when none differs."""
    read = (config or {}).get("armature")
    if not isinstance(read, dict):
        return None
    joints, changed = list(model.joints), []
    for i, j in enumerate(model.joints):
        value = read.get(j.name)
        if isinstance(value, (int, float)) and abs(float(value) - j.armature) > 1e-6 * max(abs(j.armature), 1e-3):
            joints[i] = replace(j, armature=float(value))
            changed.append(f"{j.name} {float(value):.4g} (file {j.armature:.4g})")
    if not changed:
        return None
    return replace(model, joints=tuple(joints)), (f"it holds another armature on {len(changed)} joint(s) (its own "
                                                  "report, armature): " + ", ".join(changed))


def axes_read(model: RobotModel, config: dict | None) -> tuple[RobotModel, str] | None:
    """The model with the joint axes the engine says it holds (its config's ``joint_axes_read``, joint → axis in
    the body frame), and the words naming those that differ from the file's; None when none differs."""
    read = (config or {}).get("joint_axes_read") or {}
    joints, changed = list(model.joints), []
    for i, j in enumerate(model.joints):
        axis = np.asarray(read.get(j.name, j.axis), dtype=float)
        if axis.shape == (3,) and np.linalg.norm(axis) > 0 and np.abs(axis / np.linalg.norm(axis) - j.axis).max() > 1e-9:
            joints[i] = replace(j, axis=axis / np.linalg.norm(axis))
            changed.append(f"{j.name} {matrix_text(joints[i].axis)} (the file: {matrix_text(j.axis)})")
    if not changed:
        return None
    return replace(model, joints=tuple(joints)), (f"it reads the axes of {len(changed)} joint(s) otherwise (its "
                                                  f"own report, joint_axes_read): " + ", ".join(changed))


def explain_engine(model: RobotModel, engine: str, checks: list[DynamicsCheck], s: States,
                   values: dict[str, np.ndarray], config: dict | None = None) -> list[DynamicsCheck]:
    """``checks`` of one engine on one file with the first hypothesis that explains every differing quantity
    named, its status set (``ambiguous``: the file's ambiguity; ``by design``: the engine's documented default;
    else still ``differs``).  ``values``: the engine's quantities at ``s`` (fit states); ``config``: the engine's
    :meth:`config` (the joint axes it reports holding are the first hypothesis)."""
    bad = [c.quantity for c in checks if c.status == DIFFERS]
    if not bad:
        return checks
    if not all(np.all(np.isfinite(v)) for v in values.values()):
        return [replace(c, explanation="the engine returned NaN or inf") if c.status == DIFFERS else c
                for c in checks]
    tol = {c.quantity: c.tolerance for c in checks}  # a float32 engine's differ per quantity
    for read in (axes_read(model, config), armature_read(model, config)):
        if read is not None and _agrees(read[0], s, values, bad, tol):
            return [replace(c, explanation=read[1]) if c.status == DIFFERS else c for c in checks]
    for status, words, how, params in engine_hypotheses(model, engine):
        if how == "no-armature":
            ref = reference(model, s, armature=False)
            ok = all(relative(ref[q], values[q])[0] <= tol[q] for q in bad)
        elif how == "defaults":
            ok = _agrees(default_inertials(model, params), s, values, bad, tol)
        elif how == "model":  # another reading of the file's ambiguous links (its ambiguity record)
            ok = _agrees(params, s, values, bad, tol)
        else:
            fitted = fit(model, s, values["ID"], params)
            ok = _agrees(fitted, s, values, bad, tol)
        if ok:
            if how == "fit" and len(params) == 10:  # one body: say by how much
                k = params[0][0]
                words += f"; fitted: {change_words(model.bodies[k].inertial, fitted.bodies[k].inertial)}"
            return [replace(c, status=status, explanation=words) if c.status == DIFFERS else c for c in checks]
    return [replace(c, explanation="no single parameter group explains it (the joint axes the engine reports, "
                    "the armature, one body's mass and inertia, all inertias were tried)") if c.status == DIFFERS
            else c for c in checks]


def matrix_text(m: np.ndarray) -> str:
    """A 3×3 matrix in one line, 4 significant digits, round-off below 1e-9 of its largest entry shown as 0."""
    scale = float(np.abs(m).max()) or 1.0
    m = np.where(np.abs(m) < 1e-9 * scale, 0.0, m)
    if m.ndim == 1:
        return "(" + ", ".join(f"{x:.4g}" for x in m) + ")"
    if np.allclose(m, np.diag(np.diag(m)), rtol=0, atol=1e-9 * scale):
        return "diag(" + ", ".join(f"{x:.4g}" for x in np.diag(m)) + ")"
    return "[" + "; ".join(" ".join(f"{x:.4g}" for x in row) for row in m) + "]"
