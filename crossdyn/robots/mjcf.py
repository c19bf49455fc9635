"""crossdyn's own reader of MJCF (MuJoCo XML) robot files: :func:`read_mjcf` → :class:`RobotModel`.

Written with ``xml.etree``/``expat`` and numpy only: MuJoCo is one of the engines under test, so it is never used
to parse (the tests compile the same files with MuJoCo and compare, body by body, to 1e-12).

What is read: ``<compiler>`` (angle, eulerseq, autolimits, inertiafromgeom, inertiagrouprange, boundmass,
boundinertia, balanceinertia, meshdir), ``<default>`` classes with inheritance and ``childclass``, ``<include>``, ``<option
gravity>``, the body tree of ``<worldbody>`` (``pos`` and one orientation per body; ``<frame>`` elements compose
onto what they hold), hinge and slide joints (:mod:`crossdyn.robots.mjcf_parts`), ``<inertial>`` elements, and for
a body without one (``inertiafromgeom`` auto, or always with true) the inertia of its primitive geoms
(:mod:`crossdyn.robots.mjcf_geometry`; geoms whose ``group`` is outside ``inertiagrouprange`` do not count), then
``boundmass``/``boundinertia`` and ``balanceinertia``, each body as MuJoCo's compiler makes it (with
``inertiafromgeom="true"`` a body with an ``<inertial>`` and no geom keeps its ``<inertial>``, as MuJoCo does).
Where other MJCF readers take a body otherwise (a bound, a balance, that kept ``<inertial>``), the body gets an
ambiguity record with each reading (:mod:`crossdyn.robots.mjcf_ambiguity`), as the URDF reader's massless links.

The tree: a body with a joint is a moving body of the model, its joint's origin the body's pose in its moving
ancestor's frame.  A body with several joints is split: one zero-mass body per joint, named ``BODY:JOINT``, in the
file's order (MuJoCo composes the joints in that order, each in the frame the previous one moved), the last one
carrying the body's name and inertial.  A body without a joint is welded to its moving ancestor and merged into it
(listed in :attr:`Body.merged`); welded to the world, it belongs to the fixed base.

Removed for the comparison and listed in :attr:`RobotModel.removed`: actuators (their gear kept as the joint's
gear; the effort is the smaller of the joint's ``actuatorfrcrange`` and |gear| × the actuator's ``forcerange``), contact pairs and excludes and the geoms' collisions, keyframes, sensors, gravity compensation
(``gravcomp``).  Notes: :mod:`crossdyn.robots.checks` on each body as the file writes it (welded ones before
merging), massless bodies, the bodies welded to the world, missing mesh files (INFO where no inertia needs them).
Refused (InputError, exit 2, naming file:line, element and value): free and ball joints (a floating
base), equality constraints (closed loops), tendons, composites, flexes, inertia from a mesh, a moving body or a
joint without a name, a zero axis, a negative mass, broken XML.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from crossdyn.errors import InputError
from crossdyn.robots.mjcf_ambiguity import BodyInertial, balanced, records
from crossdyn.robots.mjcf_geometry import geom_inertial, pose
from crossdyn.robots.checks import inertial_notes, model_notes, placeholder_notes
from crossdyn.robots.mjcf_parts import bounded, read_inertial, read_joint
from crossdyn.robots.mjcf_sections import (REFUSED_IN_BODY, Mesh, actuators, gravity, meshes, missing_mesh_notes,
                                           option_notes, other_removed, refuse_sections)
from crossdyn.robots.mjcf_xml import Compiler, Defaults, Document, compiler, load, numbers
from crossdyn.robots.model import Ambiguity, Body, Format, Inertial, Joint, Note, RobotModel, Severity

__all__ = ["read_mjcf"]


@dataclass
class _Moving:
    name: str
    joint: Joint
    parent: int
    inertial: Inertial
    merged: list[str] = field(default_factory=list)


@dataclass
class _Reader:
    doc: Document
    c: Compiler
    defaults: Defaults
    assets: dict[str, Mesh]
    moving: list[_Moving] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    base: str | None = None
    colliding: int = 0
    gravcomp: list[str] = field(default_factory=list)
    written: list[tuple[str, str, Inertial]] = field(default_factory=list)
    """(body name, where, inertial) of each body as the file writes it (explicit or from its geoms)."""
    world_welded: list[str] = field(default_factory=list)
    ambiguities: list[Ambiguity] = field(default_factory=list)
    """The bodies other MJCF readers take otherwise than MuJoCo's compiler (:mod:`crossdyn.robots.mjcf_ambiguity`)."""

    def body_name(self, el: ET.Element) -> str:
        return el.get("name") or f"<body at {self.doc.at(el)}>"

    # -- geoms ---------------------------------------------------------------------------------------------------

    def parts(self, el: ET.Element, T: np.ndarray, childclass: str | None, tags: tuple[str, ...]):
        """(element, attributes with defaults, pose of its frame in the body) of ``el``'s children with one of
        ``tags``, through ``<frame>`` elements (MuJoCo moves what a frame holds: geoms, joints, inertials)."""
        for child in el:
            if child.tag in tags:
                yield child, self.defaults.attrs(child, childclass), T
            elif child.tag == "frame":
                cc = child.get("childclass") or childclass
                yield from self.parts(child, T @ pose(self.doc, child, child.attrib, self.c), cc, tags)

    def geoms(self, el: ET.Element, T: np.ndarray, childclass: str | None):
        return self.parts(el, T, childclass, ("geom",))

    def count_collisions(self, el: ET.Element, childclass: str | None) -> None:
        for _g, a, _T in self.geoms(el, np.eye(4), childclass):
            if a.get("contype", "1") != "0" or a.get("conaffinity", "1") != "0":
                self.colliding += 1

    def _mesh_geom(self, body: ET.Element, g: ET.Element, a: dict[str, str]) -> InputError:
        name = a.get("mesh", "")
        mesh = self.assets.get(name)
        if mesh is None:
            return self.doc.error(g, "no <mesh> asset of that name", "mesh")
        if mesh.file is not None and not mesh.file.is_file():
            return self.doc.error(mesh.element, f"mesh file {mesh.file} does not exist (body "
                                                f"{self.body_name(body)!r} needs its inertia from it)", "file")
        return self.doc.error(g, f"inertia from mesh geometry unsupported (body {self.body_name(body)!r} has no "
                                 f"<inertial>; mesh {name!r}): give the body an <inertial>", "mesh")

    def from_geoms(self, body: ET.Element, childclass: str | None) -> Inertial:
        """The body's inertial from its geoms (MuJoCo's inertiafromgeom), zero when none counts."""
        total = Inertial.zero()
        lo, hi = self.c.inertiagrouprange
        for g, a, T in self.geoms(body, np.eye(4), childclass):
            if not lo <= (numbers(self.doc, g, "group", 1, attrs=a) or [0.0])[0] <= hi:
                continue
            kind = a.get("type", "sphere")
            mass = numbers(self.doc, g, "mass", 1, attrs=a)
            density = numbers(self.doc, g, "density", 1, attrs=a)
            if (mass or density or [1.0])[0] == 0.0:
                continue  # contributes nothing, whatever its shape (mass overrides density)
            if kind == "mesh" or "mesh" in a:  # a primitive with a mesh takes its size from the mesh (MuJoCo)
                raise self._mesh_geom(body, g, a)
            if kind in ("plane", "hfield", "sdf"):
                raise self.doc.error(g, f"unsupported: a {kind} geom in a body whose inertia comes from geoms",
                                     "type")
            total = total.plus(geom_inertial(self.doc, g, a, self.c).transformed(
                T[:3, :3], T[:3, 3]))
        return total

    def inertial(self, body: ET.Element, childclass: str | None, owner: str, X: np.ndarray,
                 welded: bool = False) -> Inertial:
        """The body's inertial as MuJoCo's compiler makes it (recorded for the checks, with the body's ambiguity
        records, :mod:`crossdyn.robots.mjcf_ambiguity`); ``owner``: the moving body it belongs to (``welded``: as
        a body welded to it), ``X``: the body's frame in the owner's."""
        got = self._inertial(body, childclass)
        name = self.body_name(body)
        self.written.append((name, f"body {name!r}" + (f" (welded to {owner!r})" if welded else ""),
                             got.compiled))
        self.ambiguities += records(got, name, owner, X[:3, :3], X[:3, 3])
        return got.compiled

    def _inertial(self, body: ET.Element, childclass: str | None) -> BodyInertial:
        explicit = list(self.parts(body, np.eye(4), childclass, ("inertial",)))
        if len(explicit) > 1:
            raise self.doc.error(explicit[1][0], f"a second <inertial> in body {self.body_name(body)!r}")
        # inertiafromgeom="true" sets the <inertial> aside for the geoms; MuJoCo keeps it where there is no geom
        without_geoms = bool(explicit) and self.c.inertiafromgeom == "true" and not any(
            True for _ in self.geoms(body, np.eye(4), childclass))
        if explicit and (self.c.inertiafromgeom != "true" or without_geoms):
            el, _a, T = explicit[0]
            found = read_inertial(self.doc, el, self.c).transformed(T[:3, :3], T[:3, 3])
        elif self.c.inertiafromgeom != "false":
            found = self.from_geoms(body, childclass)
        else:
            found = Inertial.zero()
        floor = bounded(found, self.c)
        return BodyInertial(found, floor, balanced(floor, self.c), without_geoms)

    # -- bodies --------------------------------------------------------------------------------------------------

    def check_body(self, el: ET.Element) -> None:
        for child in el:
            if child.tag in REFUSED_IN_BODY:
                raise self.doc.error(child, f"unsupported: {REFUSED_IN_BODY[child.tag]}")
        if el.get("class") is not None:
            raise self.doc.error(el, "a body has no class attribute in MJCF (childclass sets its elements' class; "
                                     "MuJoCo refuses it too)", "class")
        cc = el.get("childclass")
        if cc is not None and cc not in self.defaults.classes:
            raise self.doc.error(el, "no <default> class of that name", "childclass")
        g = numbers(self.doc, el, "gravcomp", 1)
        if g is not None and g[0] != 0:
            self.gravcomp.append(f"{self.body_name(el)} ({g[0]:g})")

    def add_moving(self, el: ET.Element, joints: list, X: np.ndarray, parent: int, childclass: str | None) -> int:
        """Append the moving body (bodies, one per joint) of ``el``; the index of the last."""
        if not el.get("name"):
            raise self.doc.error(el, "a body with a joint needs a name (crossdyn matches bodies by name)")
        name = el.get("name", "")
        reads = [read_joint(self.doc, j, a, self.c) for j, a, _T in joints]
        reads = [replace(r, axis=T[:3, :3] @ r.axis, anchor=T[:3, :3] @ r.anchor + T[:3, 3])
                 for r, (_j, _a, T) in zip(reads, joints, strict=True)]
        if len(reads) > 1:
            self.notes.append(Note(f"body {name!r}", f"{len(reads)} joints in one body: split into zero-mass "
                                   f"bodies {', '.join(f'{name}:{r.name}' for r in reads[:-1])} and {name!r}",
                                   Severity.INFO))
        for k, r in enumerate(reads):
            origin = r.fold_ref(X if k == 0 else np.eye(4))
            joint = Joint(r.name, r.type, origin, r.axis, r.anchor, r.lower, r.upper, r.effort, None, r.damping,
                          r.friction, r.armature)
            last = k == len(reads) - 1
            inertial = self.inertial(el, childclass, name, np.eye(4)) if last else Inertial.zero()
            self.moving.append(_Moving(name if last else f"{name}:{r.name}", joint, parent, inertial))
            parent = len(self.moving) - 1
        return parent

    def walk(self, el: ET.Element, X: np.ndarray, parent: int, childclass: str | None, top: str | None) -> None:
        """Read the bodies under ``el``, whose frame has pose X in body ``parent``'s frame (−1: the world);
        ``top`` is the outermost body welded to the world on the way (the base's name)."""
        for child in el:
            if child.tag == "frame":
                self.walk(child, X @ pose(self.doc, child, child.attrib, self.c), parent,
                          child.get("childclass") or childclass, top)
                continue
            if child.tag != "body":
                continue
            self.check_body(child)
            cc = child.get("childclass") or childclass
            Xb = X @ pose(self.doc, child, child.attrib, self.c)
            joints = list(self.parts(child, np.eye(4), cc, ("joint", "freejoint")))
            self.count_collisions(child, cc)
            if joints:
                if parent < 0 and self.base is None:
                    self.base = top or "world"
                index = self.add_moving(child, joints, Xb, parent, cc)
                self.walk(child, np.eye(4), index, cc, top)
                continue
            if parent >= 0:
                m = self.moving[parent]
                welded = self.inertial(child, cc, m.name, Xb, welded=True).transformed(Xb[:3, :3], Xb[:3, 3])
                m.inertial = m.inertial.plus(welded)
                m.merged.append(self.body_name(child))
            else:
                self.world_welded.append(self.body_name(child))
            self.walk(child, Xb, parent, cc, top if parent >= 0 or top else self.body_name(child))


def _removed(r: _Reader, gears_lines: list[str]) -> list[str]:
    out = list(gears_lines)
    if r.colliding:
        out.append(f"collisions of {r.colliding} geom{'s' * (r.colliding != 1)} with contype/conaffinity ≠ 0 "
                   "removed (no contact in the comparison)")
    out += other_removed(r.doc)
    if r.gravcomp:
        out.append(f"gravcomp (gravity compensation) removed on {len(r.gravcomp)} bod"
                   f"{'y' if len(r.gravcomp) == 1 else 'ies'}: {', '.join(r.gravcomp)}")
    return out


def _refuse_repeated_names(path: str | Path, moving: list[_Moving]) -> None:
    for what, names in (("joint", [m.joint.name for m in moving]),
                        ("body", [n for m in moving for n in (m.name, *m.merged)])):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InputError(f"{path}: {what} name {twice[0]!r} used more than once (crossdyn matches {what}s by "
                             "name; MuJoCo refuses repeated names too)", where=f"{path} <{what} name={twice[0]!r}>",
                             value=twice[0])


def _body_notes(r: _Reader) -> list[Note]:
    """The bodies welded to the world, and :mod:`crossdyn.robots.checks` on each body as the file writes it."""
    notes = []
    if r.world_welded:
        notes.append(Note(f"body {r.world_welded[0]!r}", "welded to the world: part of the fixed base, ignored "
                          f"for the dynamics ({', '.join(r.world_welded)})"))
    for _name, where, inertial in r.written:
        if inertial.mass == 0.0 and not np.any(inertial.inertia):
            notes.append(Note(where, "no <inertial> and no geom with mass: massless"))
        notes += inertial_notes(where, inertial)
    return notes + placeholder_notes([(name, inertial) for name, _where, inertial in r.written], kind="bodies")


def read_mjcf(path: str | Path) -> RobotModel:
    """The MJCF file at ``path`` as a :class:`RobotModel` (module docstring); InputError (exit 2) naming the file,
    line, element and value for what cannot be represented."""
    doc = load(path)
    refuse_sections(doc)
    c = compiler(doc)
    defaults = Defaults(doc)
    r = _Reader(doc, c, defaults, meshes(doc, c))
    for wb in doc.root.findall("worldbody"):
        r.count_collisions(wb, None)
        r.walk(wb, np.eye(4), -1, None, None)
    if not r.moving:
        raise InputError(f"{path}: no body with a joint: nothing moves", where=str(path))
    _refuse_repeated_names(path, r.moving)
    act = actuators(doc, defaults, {m.joint.name for m in r.moving}, c)
    joints = []
    for m in r.moving:
        j = m.joint
        efforts = [e for e in (j.effort, act.efforts.get(j.name)) if e is not None]
        joints.append(Joint(j.name, j.type, j.origin, j.axis, j.anchor, j.lower, j.upper,
                            min(efforts) if efforts else None, j.velocity, j.damping, j.friction, j.armature,
                            act.gears.get(j.name, 1.0)))
    model = RobotModel(name=doc.root.get("model") or Path(path).stem, source=str(path), format=Format.MJCF,
                       base=r.base or "world", bodies=tuple(Body(m.name, m.inertial, tuple(m.merged))
                                                            for m in r.moving),
                       joints=tuple(joints), parents=tuple(m.parent for m in r.moving), gravity=gravity(doc),
                       notes=tuple(r.notes + act.notes + _body_notes(r) + option_notes(doc)
                                   + missing_mesh_notes(doc, r.assets)),
                       removed=tuple(_removed(r, act.removed)), ambiguities=tuple(r.ambiguities))
    extra = model_notes(model)
    return replace(model, notes=model.notes + tuple(extra)) if extra else model
