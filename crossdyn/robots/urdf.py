"""Read a URDF file into a :class:`~crossdyn.robots.model.RobotModel` (fixed-base trees, 1-dof joints).

What is read (URDF's own rules, as ``urdfdom`` — the parser behind Pinocchio — applies them):

* ``<link>``: ``<inertial>`` with ``<origin xyz rpy>`` (the centre of mass and the orientation of the inertia
  axes in the link frame), ``<mass value>`` (≥ 0) and ``<inertia ixx ixy ixz iyy iyz izz>`` (all six required),
  rotated into the link frame: I_link = R I Rᵀ.  A link without ``<inertial>`` is massless (a Note).
* ``<joint>`` of type revolute, continuous, prismatic or fixed: ``<origin xyz rpy>`` (roll-pitch-yaw about the
  fixed axes, R = Rz(y)·Ry(p)·Rx(r)), ``<axis xyz>`` (default 1 0 0, normalised; zero is an error),
  ``<limit lower upper effort velocity>`` (required for revolute and prismatic, with effort and velocity;
  lower/upper default 0; ignored positions of a continuous joint), ``<dynamics damping friction>`` (default 0).
* Fixed joints weld their child to the parent: the child's inertial, moved by the fixed origin, is added to the
  moving body it hangs from (:meth:`Inertial.plus`), and the child is listed in ``Body.merged``.  Links welded
  to the root link (the base) are the base: ignored for the dynamics, listed in a Note.
* ``<transmission>`` with one joint: its ``mechanicalReduction`` is the joint's ``gear``.
* ``<mimic>``: the joint is read as an independent joint (as Pinocchio's ``buildModelFromUrdf`` by default and
  PyBullet do; MuJoCo's importer adds an equality constraint, Drake a coupler): an AMBIGUOUS Note, and the
  constraint is listed in ``removed``.  M(q), G(q) and C(q, q̇)q̇ do not depend on it.
* Gravity: URDF has none; (0, 0, −9.81) m/s² is used (an INFO Note).

Visual and collision geometry does not enter the rigid-body dynamics read here: a mesh file that cannot be found
(``package://`` paths included) is an INFO Note.  Everything the model cannot represent (a floating or planar
joint, a closed loop, two roots, an unknown link or joint type, a zero axis, a negative mass, a value that is not a
number, broken XML) raises :class:`~crossdyn.errors.InputError` naming the file, the line, the element and the
value.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from crossdyn.robots.ambiguity import Ambiguity, link_ambiguity
from crossdyn.robots.checks import RELATIVE_TOL, inertial_notes, model_notes, placeholder_notes
from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, Note, RobotModel, Severity
from crossdyn.robots.urdf_files import extension_notes, mesh_notes, transmission_gears
from crossdyn.robots.urdf_xml import XmlDoc, parse_xml

GRAVITY = (0.0, 0.0, -9.81)
"""URDF has no gravity; this is MuJoCo's, Pinocchio's, PyBullet's, Drake's and DART's common default."""

MOVING = {"revolute": JointType.REVOLUTE, "continuous": JointType.CONTINUOUS, "prismatic": JointType.PRISMATIC}
UNSUPPORTED = {"floating": "floating base unsupported: crossdyn reads fixed-base robots (6-dof joints are not "
                           "represented)",
               "planar": "planar joints (3 degrees of freedom) unsupported: crossdyn reads revolute, continuous, "
                         "prismatic and fixed joints"}
AXIS_TOL = 1e-9
"""|axis| may differ from 1 by this much (float rounding of a printed unit vector) before a Note says it was
normalised."""


def rpy_matrix(r: float, p: float, y: float) -> np.ndarray:
    """URDF's roll-pitch-yaw about the fixed axes: R = Rz(y) · Ry(p) · Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def transform(xyz, rpy) -> np.ndarray:
    """The 4×4 homogeneous transform [[R(rpy), xyz], [0, 1]]."""
    T = np.eye(4)
    T[:3, :3] = rpy_matrix(*rpy)
    T[:3, 3] = xyz
    return T


@dataclass(frozen=True, eq=False)
class _Link:
    name: str
    el: ET.Element
    inertial: Inertial | None


@dataclass(frozen=True, eq=False)
class _UJoint:
    name: str
    el: ET.Element
    kind: str
    parent: str
    child: str
    origin: np.ndarray
    joint: Joint | None
    """The moving joint as read (origin relative to the parent link); None for a fixed joint."""
    mimic: tuple[str, float, float] | None = None


def _origin(doc: XmlDoc, el: ET.Element, what: str) -> np.ndarray:
    o = el.find("origin")
    return transform(doc.vector(o, "xyz", what, (0.0, 0.0, 0.0)), doc.vector(o, "rpy", what, (0.0, 0.0, 0.0)))


def _only(doc: XmlDoc, el: ET.Element, tag: str, what: str) -> ET.Element | None:
    found = el.findall(tag)
    if len(found) > 1:
        raise doc.error(found[1], what, f"{len(found)} <{tag}> elements; URDF allows one", len(found))
    return found[0] if found else None


def _inertial(doc: XmlDoc, el: ET.Element, what: str) -> Inertial:
    """The ``<inertial>`` element ``el`` in its link's frame: m, c = origin xyz, I = R(rpy) I_file Rᵀ."""
    what = f"{what} <inertial>"
    mass_el, inertia_el = el.find("mass"), el.find("inertia")
    if mass_el is None:
        raise doc.error(el, what, "no <mass value=\"…\"/> (required)")
    if inertia_el is None:
        raise doc.error(el, what, "no <inertia ixx ixy ixz iyy iyz izz/> (required)")
    m = doc.number(mass_el, "value", what, required=True)
    assert m is not None
    if m < 0.0:
        raise doc.error(mass_el, what, f"<mass value=\"{mass_el.get('value')}\">: negative mass", m)
    v = {k: doc.number(inertia_el, k, what, required=True) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]], [v["ixz"], v["iyz"], v["izz"]]],
                 dtype=float)
    T = _origin(doc, el, what)
    R = T[:3, :3]
    return Inertial(m, T[:3, 3], R @ I @ R.T)


def _read_links(doc: XmlDoc) -> dict[str, _Link]:
    links: dict[str, _Link] = {}
    for el in doc.root.findall("link"):
        name = el.get("name")
        if not name:
            raise doc.error(el, "<link>", "no name=\"…\" attribute (required)")
        what = f"link '{name}'"
        if name in links:
            raise doc.error(el, what, f"link name '{name}' used twice (first at line "
                                      f"{doc.lines.get(links[name].el)})", name)
        inertial_el = _only(doc, el, "inertial", what)
        links[name] = _Link(name, el, None if inertial_el is None else _inertial(doc, inertial_el, what))
    if not links:
        raise doc.error(doc.root, f"<robot name=\"{doc.root.get('name', '')}\">", "no <link> elements")
    return links


def _limits(doc: XmlDoc, el: ET.Element, what: str, jt: JointType, notes: list[Note]) -> dict:
    """lower, upper, effort, velocity from ``<limit>`` (URDF: required for revolute and prismatic, with effort and
    velocity; lower and upper default to 0, and a Note says so)."""
    lim = _only(doc, el, "limit", what)
    if lim is None:
        if jt is JointType.CONTINUOUS:
            return {}
        raise doc.error(el, what, f"a {jt.value} joint needs <limit lower upper effort velocity/> (URDF requires "
                                  "it; continuous joints have none)")
    required = jt is not JointType.CONTINUOUS
    out = {k: doc.number(lim, k, f"{what} <limit>", required=required) for k in ("effort", "velocity")}
    for k, x in out.items():
        if x is not None and x < 0.0:
            raise doc.error(lim, f"{what} <limit>", f"{k}=\"{lim.get(k)}\": negative", x)
    if required:
        lo = doc.number(lim, "lower", f"{what} <limit>", default=0.0)
        hi = doc.number(lim, "upper", f"{what} <limit>", default=0.0)
        assert lo is not None and hi is not None
        absent = [k for k in ("lower", "upper") if lim.get(k) is None]
        if absent:
            notes.append(Note(f"{what} <limit>", f"no {' and no '.join(f'{k}=' for k in absent)}: 0, URDF's "
                                                 f"default (the joint moves within [{lo:g}, {hi:g}])"))
        if lo > hi:
            raise doc.error(lim, f"{what} <limit>", f"lower=\"{lim.get('lower')}\" > upper=\"{lim.get('upper')}\"",
                            (lo, hi))
        out.update(lower=lo, upper=hi)
    return out


def _dynamics(doc: XmlDoc, el: ET.Element, what: str) -> dict:
    d = _only(doc, el, "dynamics", what)
    if d is None:
        return {}
    out = {}
    for k in ("damping", "friction"):
        x = doc.number(d, k, f"{what} <dynamics>", default=0.0)
        assert x is not None
        if x < 0.0:
            raise doc.error(d, f"{what} <dynamics>", f"{k}=\"{d.get(k)}\": negative", x)
        out[k] = x
    return out


def _axis(doc: XmlDoc, el: ET.Element, what: str, notes: list[Note]) -> np.ndarray:
    ax_el = el.find("axis")
    a = np.array(doc.vector(ax_el, "xyz", f"{what} <axis>", (1.0, 0.0, 0.0)))
    norm = float(np.linalg.norm(a))
    if norm == 0.0:
        assert ax_el is not None
        raise doc.error(ax_el, f"{what} <axis>", f"xyz=\"{ax_el.get('xyz')}\": zero axis (a moving joint needs a "
                                                  "direction)", ax_el.get("xyz"))
    if abs(norm - 1.0) > AXIS_TOL:
        notes.append(Note(f"{what} <axis>", f"axis ({ax_el.get('xyz') if ax_el is not None else ''}) has length "
                                            f"{norm:g}: normalised"))
    return a / norm


def _mimic(doc: XmlDoc, el: ET.Element, what: str) -> tuple[str, float, float] | None:
    m = el.find("mimic")
    if m is None:
        return None
    other = m.get("joint")
    if not other:
        raise doc.error(m, f"{what} <mimic>", "no joint=\"…\" attribute (required)")
    mult = doc.number(m, "multiplier", f"{what} <mimic>", default=1.0)
    off = doc.number(m, "offset", f"{what} <mimic>", default=0.0)
    assert mult is not None and off is not None
    return other, mult, off


def _read_joint(doc: XmlDoc, el: ET.Element, links: dict[str, _Link], notes: list[Note]) -> _UJoint:
    name = el.get("name")
    if not name:
        raise doc.error(el, "<joint>", "no name=\"…\" attribute (required)")
    what = f"joint '{name}'"
    kind = el.get("type")
    if kind in UNSUPPORTED:
        raise doc.error(el, what, f"type=\"{kind}\": {UNSUPPORTED[kind]}", kind)
    if kind not in MOVING and kind != "fixed":
        raise doc.error(el, what, f"type=\"{kind}\": unknown joint type (URDF: revolute, continuous, prismatic, "
                                  "fixed, floating, planar)", kind)
    ends = {}
    for tag in ("parent", "child"):
        e = _only(doc, el, tag, what)
        if e is None or not e.get("link"):
            raise doc.error(el if e is None else e, what, f"no <{tag} link=\"…\"/> (required)")
        if e.get("link") not in links:
            raise doc.error(e, f"{what} <{tag}>", f"link=\"{e.get('link')}\": no such link in the file",
                            e.get("link"))
        ends[tag] = e.get("link", "")
    if ends["parent"] == ends["child"]:
        raise doc.error(el, what, f"parent and child are the same link '{ends['parent']}'", ends["parent"])
    origin = _origin(doc, el, f"{what} <origin>")
    if kind == "fixed":
        return _UJoint(name, el, kind, ends["parent"], ends["child"], origin, None)
    jt = MOVING[kind]
    joint = Joint(name, jt, origin, _axis(doc, el, what, notes), **_limits(doc, el, what, jt, notes),
                  **_dynamics(doc, el, what))
    return _UJoint(name, el, kind, ends["parent"], ends["child"], origin, joint, _mimic(doc, el, what))


def _read_joints(doc: XmlDoc, links: dict[str, _Link], notes: list[Note]) -> list[_UJoint]:
    joints: list[_UJoint] = []
    seen: dict[str, _UJoint] = {}
    for el in doc.root.findall("joint"):
        j = _read_joint(doc, el, links, notes)
        if j.name in seen:
            raise doc.error(el, f"joint '{j.name}'", f"joint name '{j.name}' used twice (first at line "
                                                     f"{doc.lines.get(seen[j.name].el)})", j.name)
        seen[j.name] = j
        joints.append(j)
    for j in joints:
        if j.mimic and (j.mimic[0] not in seen or seen[j.mimic[0]].joint is None):
            m = j.el.find("mimic")
            assert m is not None
            raise doc.error(m, f"joint '{j.name}' <mimic>", f"joint=\"{j.mimic[0]}\": no such moving joint in "
                                                            "the file", j.mimic[0])
    return joints


def _root(doc: XmlDoc, links: dict[str, _Link], joints: list[_UJoint]) -> str:
    """The one root link; InputError for a closed loop (a link with two parents) or several roots."""
    parent_of: dict[str, _UJoint] = {}
    for j in joints:
        if j.child in parent_of:
            first = parent_of[j.child]
            raise doc.error(j.el, f"joint '{j.name}'", f"closed loop unsupported: link '{j.child}' is already the "
                                                        f"child of joint '{first.name}' (line "
                                                        f"{doc.lines.get(first.el)})", j.child)
        parent_of[j.child] = j
    roots = [name for name in links if name not in parent_of]
    if len(roots) > 1:
        shown = ", ".join(f"'{r}'" for r in roots[:6]) + (", …" if len(roots) > 6 else "")
        raise doc.error(links[roots[1]].el, f"link '{roots[1]}'",
                        f"{len(roots)} root links ({shown}): a URDF is one tree with one root; link "
                        f"'{roots[1]}' is not the child of any joint", roots)
    if not roots:
        j = joints[0]
        raise doc.error(j.el, f"joint '{j.name}'", "closed loop unsupported: every link is the child of a joint "
                                                   "(no root link)", j.name)
    return roots[0]


@dataclass
class _Owner:
    """A moving body under construction (or the base): its link name, inertial so far and welded links."""

    name: str
    inertial: Inertial
    merged: list[str]
    index: int
    """Body index; -1 for the base."""


def _assemble(doc: XmlDoc, links: dict[str, _Link], joints: list[_UJoint], root: str):
    """Walk the tree from ``root`` depth first (children in file order, as Pinocchio does): each moving joint
    starts a body; each fixed joint welds its child to the body it hangs from.

    Returns (owners of the moving bodies, their joints with origins in the parent body's frame, parents, the
    base's owner, the body each link belongs to, each link's frame in its owner's frame)."""
    children: dict[str, list[_UJoint]] = {}
    for j in joints:
        children.setdefault(j.parent, []).append(j)
    base = _Owner(root, links[root].inertial or Inertial.zero(), [], -1)
    owners: list[_Owner] = []
    body_joints: list[Joint] = []
    parents: list[int] = []
    owner_of = {root: base}
    frame_of = {root: np.eye(4)}
    stack: list[tuple[_UJoint, _Owner, np.ndarray]] = [(j, base, np.eye(4)) for j in reversed(children.get(root, []))]
    while stack:
        j, owner, T = stack.pop()  # T: the frame of j's parent link in its owner's frame
        X = T @ j.origin
        if j.joint is None:
            child = links[j.child].inertial
            if child is not None:
                owner.inertial = owner.inertial.plus(child.transformed(X[:3, :3], X[:3, 3]))
            owner.merged.append(j.child)
        else:
            owner = _Owner(j.child, links[j.child].inertial or Inertial.zero(), [], len(owners))
            owners.append(owner)
            body_joints.append(replace(j.joint, origin=X))
            parents.append(owner_of[j.parent].index)
            X = np.eye(4)
        owner_of[j.child], frame_of[j.child] = owner, X
        stack.extend((c, owner, X) for c in reversed(children.get(j.child, [])))
    unreached = [name for name in links if name not in owner_of]
    if unreached:
        j = next(j for j in joints if j.child == unreached[0])
        raise doc.error(j.el, f"joint '{j.name}'", f"closed loop unsupported: links {', '.join(unreached)} are not "
                                                   f"reachable from the root link '{root}'", unreached)
    return owners, body_joints, parents, base, owner_of, frame_of


def _ambiguities(links: dict[str, _Link], base: _Owner, owner_of: dict[str, _Owner],
                 frame_of: dict[str, np.ndarray]) -> tuple[Ambiguity, ...]:
    """The moving links whose inertial engines read differently (:func:`crossdyn.robots.ambiguity.link_ambiguity`),
    each reading in the frame of the body the link belongs to."""
    out = []
    for name, link in links.items():
        owner = owner_of[name]
        if owner is base or link.inertial is None:
            continue
        X = frame_of[name]
        amb = link_ambiguity(name, owner.name, link.inertial, X[:3, :3], X[:3, 3], RELATIVE_TOL)
        if amb is not None:
            out.append(amb)
    return tuple(out)



def _link_notes(links: dict[str, _Link], base: _Owner, owner_of: dict[str, _Owner]) -> list[Note]:
    """Notes on the links as the file writes them: the base, links without <inertial>, each inertial's checks."""
    notes: list[Note] = []
    if base.merged or base.inertial.mass:
        welded = f", with the links welded to it: {', '.join(base.merged)}" if base.merged else ""
        notes.append(Note(f"link '{base.name}'", f"the base (root link{welded}; {base.inertial.mass:g} kg in "
                                                  "all): fixed to the world, ignored for the dynamics"))
    for name, link in links.items():
        owner = owner_of[name]
        if owner is base:
            continue
        where = f"link '{name}'" + (f" (welded to '{owner.name}')" if owner.name != name else "")
        if link.inertial is None:
            notes.append(Note(where, "no <inertial>: massless"))
        else:
            notes.extend(inertial_notes(where, link.inertial))
    return notes


def _mimic_notes(joints: list[_UJoint]) -> tuple[list[Note], list[str]]:
    notes, removed = [], []
    for j in joints:
        if j.mimic is None:
            continue
        other, mult, off = j.mimic
        rule = f"q({j.name}) = {mult:g}·q({other}) + {off:g}"
        notes.append(Note(f"joint '{j.name}' <mimic>", f"mimic joint ({rule}) read as an independent joint, as "
                          "Pinocchio's buildModelFromUrdf (default) and PyBullet do; MuJoCo's importer adds an "
                          "equality constraint and Drake a coupler constraint: M(q), G(q), C(q,q̇)q̇ do not depend "
                          "on it, simulations do", Severity.AMBIGUOUS))
        removed.append(f"mimic constraint {rule} (joint '{j.name}'): not enforced")
    return notes, removed


def read_urdf(path: str | Path) -> RobotModel:
    """The URDF file at ``path`` as a :class:`RobotModel` (see the module docstring for what is read)."""
    doc = parse_xml(path)
    if doc.root.tag != "robot":
        raise doc.error(doc.root, f"<{doc.root.tag}>", "the root element of a URDF file is <robot>", doc.root.tag)
    notes: list[Note] = []
    links = _read_links(doc)
    joints = _read_joints(doc, links, notes)
    if not any(j.joint is not None for j in joints):
        raise doc.error(doc.root, f"<robot name=\"{doc.root.get('name', '')}\">",
                        "no revolute, continuous or prismatic joint: nothing moves", None)
    root = _root(doc, links, joints)
    owners, body_joints, parents, base, owner_of, frame_of = _assemble(doc, links, joints, root)
    gears, transmission_notes = transmission_gears(doc, {j.name: j.joint is not None for j in joints})
    body_joints = [replace(j, gear=gears[j.name]) if j.name in gears else j for j in body_joints]
    mimic, removed = _mimic_notes(joints)
    ext_notes, ext_removed = extension_notes(doc)
    notes = [Note("<robot>", f"URDF has no gravity: ({', '.join(f'{g:g}' for g in GRAVITY)}) m/s² used, the "
                             "default of MuJoCo, Pinocchio, PyBullet, Drake and DART")] + notes
    notes += _link_notes(links, base, owner_of)
    notes += placeholder_notes([(n, lk.inertial) for n, lk in links.items() if lk.inertial is not None])
    notes += mimic + transmission_notes + ext_notes + mesh_notes(doc)
    bodies = tuple(Body(o.name, o.inertial, tuple(o.merged)) for o in owners)
    model = RobotModel(doc.root.get("name") or doc.path.stem, str(path), Format.URDF, root, bodies,
                       tuple(body_joints), tuple(parents), np.array(GRAVITY), tuple(notes),
                       tuple(removed + ext_removed), _ambiguities(links, base, owner_of, frame_of))
    extra = model_notes(model)
    return replace(model, notes=model.notes + tuple(extra)) if extra else model

