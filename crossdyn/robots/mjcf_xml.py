"""MJCF as XML: the document with its ``<include>``s expanded, each element's file and line, numbers read from
attributes, the ``<compiler>`` settings and the ``<default>`` classes (the MJCF reader's lowest layer).

Rules followed (MuJoCo's XML reference, checked against MuJoCo 4.0 in ``tests/test_robot_mjcf.py``):

* ``<include file="F"/>`` is replaced by the children of F's ``<mujoco>`` root; F is looked up relative to the
  including file's folder, then to the main file's folder (MuJoCo 4.0 accepts both).
* Defaults: the top-level ``<default>`` is class ``main``; a nested ``<default class="X">`` starts from a copy of
  its parent's attributes and overrides them.  An element takes its own ``class``, else the ``childclass`` of the
  nearest enclosing ``<body>``/``<frame>`` that has one, else ``main``; its own attributes override the class's.
  All actuator shortcuts (``general``, ``motor``, ``position``, …) share one default per class, as in MuJoCo.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from crossdyn.errors import InputError

ACTUATOR_TAGS = ("general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle",
                 "adhesion", "plugin")
"""The children of ``<actuator>`` (and of a ``<default>``, for all but ``plugin``)."""
IDENTIFYING = ("joint1", "body1", "geom1", "site1", "tendon1", "joint", "tendon", "body", "site", "file", "mesh")
"""Attributes that identify an unnamed element in a message (an ``<equality>``'s joints, an actuator's target)."""


@dataclass
class Document:
    """An MJCF file with its includes expanded: the ``<mujoco>`` root, where each element came from, the main
    file."""

    root: ET.Element
    path: Path
    lines: dict[int, tuple[Path, int]] = field(default_factory=dict)
    """``id(element)`` → (file, line) of its start tag."""

    def at(self, el: ET.Element) -> str:
        """``FILE:LINE`` of ``el``'s start tag."""
        f, line = self.lines.get(id(el), (self.path, 0))
        return f"{f}:{line}"

    def describe(self, el: ET.Element, skip: str | None = None) -> str:
        """``<tag name='N'>``; unnamed, ``<tag KEY='V'>`` with the first attribute that identifies it (joint1,
        body1, joint, …), else ``<tag>`` (the line is in :meth:`at`)."""
        key = next((k for k in ("name",) + IDENTIFYING if el.get(k) is not None and k != skip), None)
        return f"<{el.tag} {key}={el.get(key)!r}>" if key else f"<{el.tag}>"

    def error(self, el: ET.Element, message: str, attr: str | None = None) -> InputError:
        """An InputError naming the file and line, the element, the attribute and its value."""
        value = el.get(attr) if attr else None
        what = f'{self.describe(el, attr)} {attr}="{value}"' if attr else self.describe(el)
        return InputError(f"{self.at(el)}: {what}: {message}", where=f"{self.at(el)} {self.describe(el)}",
                          value=value)


def _parse_one(path: Path, lines: dict[int, tuple[Path, int]]) -> ET.Element:
    """One XML file as an element tree, recording each element's line; InputError naming the file and the line
    for XML that is not well formed."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read the MJCF file ({e.strerror})", where=str(path)) from None
    parser = expat.ParserCreate()
    stack: list[ET.Element] = []
    top: list[ET.Element] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        el = ET.Element(tag, attrs)
        lines[id(el)] = (path, parser.CurrentLineNumber)
        (stack[-1].append(el) if stack else top.append(el))
        stack.append(el)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise InputError(f"{path}:{e.lineno}: not well-formed XML ({expat.ErrorString(e.code)}, line {e.lineno}, "
                         f"column {e.offset})", where=f"{path}:{e.lineno}", value=e.lineno) from None
    return top[0]


def _expand(doc: Document, el: ET.Element, here: Path, seen: tuple[Path, ...]) -> None:
    """Replace every ``<include>`` under ``el`` (recursively) by the included file's root children."""
    i = 0
    while i < len(el):
        child = el[i]
        if child.tag != "include":
            _expand(doc, child, here, seen)
            i += 1
            continue
        name = child.get("file")
        if not name:
            raise doc.error(child, "needs a file attribute", "file")
        candidates = [here.parent / name, doc.path.parent / name]
        target = next((c for c in candidates if c.is_file()), None)
        if target is None:
            raise doc.error(child, f"included file not found (looked for {candidates[0]})", "file")
        if target.resolve() in seen:
            raise doc.error(child, "includes itself (a cycle of includes)", "file")
        sub = _parse_one(target, doc.lines)
        if sub.tag != "mujoco":
            raise doc.error(child, f"the included file's root is <{sub.tag}>, not <mujoco>", "file")
        _expand(doc, sub, target, seen + (target.resolve(),))
        el.remove(child)
        for k, grandchild in enumerate(list(sub)):
            el.insert(i + k, grandchild)
        i += len(sub)


def load(path: str | Path) -> Document:
    """The MJCF file at ``path`` with its includes expanded (InputError for a missing file, broken XML, a root
    other than ``<mujoco>``)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such MJCF file", where=str(p))
    doc = Document(ET.Element("mujoco"), p)
    root = _parse_one(p, doc.lines)
    doc.root = root
    if root.tag != "mujoco":
        raise doc.error(root, "the root element of an MJCF file must be <mujoco>")
    _expand(doc, root, p, (p.resolve(),))
    return doc


def numbers(doc: Document, el: ET.Element, attr: str, count: int | None = None, *,
            attrs: dict[str, str] | None = None) -> list[float] | None:
    """The attribute's whitespace-separated numbers (from ``attrs``, the resolved attributes, else the element),
    None when absent; InputError unless they are finite and (``count``) exactly that many."""
    raw = (attrs if attrs is not None else el.attrib).get(attr)
    if raw is None:
        return None
    try:
        values = [float(v) for v in raw.split()]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) for v in values) or (count is not None and len(values) != count):
        n = f"{count} numbers" if count is not None else "numbers"
        el.attrib.setdefault(attr, raw)
        raise doc.error(el, f"must be {n}", attr)
    return values


@dataclass(frozen=True)
class Compiler:
    """The ``<compiler>`` settings the reader uses (MuJoCo's defaults)."""

    degrees: bool = True
    """``angle``: MJCF's default is ``degree`` (euler, axisangle and hinge ranges)."""
    eulerseq: str = "xyz"
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple[int, int] = (0, 5)
    meshdir: Path = Path(".")
    boundmass: float = 0.0
    boundinertia: float = 0.0
    balanceinertia: bool = False
    """MuJoCo sets the principal moments of an inertia off the triangle inequality to their mean."""


def compiler(doc: Document) -> Compiler:
    """The merged ``<compiler>`` elements (later ones override); InputError for settings the reader cannot
    represent (``settotalmass``, ``coordinate="global"``) or bad values."""
    a: dict[str, str] = {}
    last: dict[str, ET.Element] = {}
    for el in doc.root.iter("compiler"):
        a.update(el.attrib)
        last.update({k: el for k in el.attrib})
    if a.get("angle", "degree") not in ("degree", "radian"):
        raise doc.error(last["angle"], "must be degree or radian", "angle")
    seq = a.get("eulerseq", "xyz")
    if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
        raise doc.error(last["eulerseq"], "must be three of x y z X Y Z", "eulerseq")
    fromgeom = a.get("inertiafromgeom", "auto")
    if fromgeom not in ("auto", "true", "false"):
        raise doc.error(last["inertiafromgeom"], "must be auto, true or false", "inertiafromgeom")
    if a.get("balanceinertia", "false") not in ("true", "false"):
        raise doc.error(last["balanceinertia"], "must be true or false", "balanceinertia")
    for key, ok in (("coordinate", "local"),):
        if a.get(key, ok) != ok:
            raise doc.error(last[key], f"unsupported: crossdyn reads {key}=\"{ok}\" only", key)
    def one(key: str) -> float:
        return (numbers(doc, last[key], key, 1) or [0.0])[0] if key in a else 0.0

    if one("settotalmass") > 0:
        raise doc.error(last["settotalmass"], "unsupported: rescaling the masses is not read", "settotalmass")
    group = numbers(doc, last["inertiagrouprange"], "inertiagrouprange", 2) if "inertiagrouprange" in a else (0, 5)
    assert group is not None
    base = doc.path.parent
    meshdir = a.get("meshdir", a.get("assetdir", "."))
    return Compiler(degrees=a.get("angle", "degree") == "degree", eulerseq=seq,
                    autolimits=a.get("autolimits", "true") == "true", inertiafromgeom=fromgeom,
                    inertiagrouprange=(int(group[0]), int(group[1])), meshdir=base / meshdir,
                    boundmass=one("boundmass"), boundinertia=one("boundinertia"),
                    balanceinertia=a.get("balanceinertia", "false") == "true")


class Defaults:
    """The ``<default>`` classes: per class, per element kind, the attributes with inheritance applied."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.classes: dict[str, dict[str, dict[str, str]]] = {"main": {}}
        for top in doc.root.findall("default"):
            self._read(top, top.get("class", "main"), {})

    @staticmethod
    def kind(tag: str) -> str:
        return "actuator" if tag in ACTUATOR_TAGS else tag

    def _read(self, el: ET.Element, name: str, parent: dict[str, dict[str, str]]) -> None:
        if name in self.classes and name != "main":
            raise self.doc.error(el, "repeated default class", "class")
        own = {k: dict(v) for k, v in parent.items()}
        if name == "main":
            own = {k: dict(v) for k, v in self.classes["main"].items()}
        for child in el:
            if child.tag == "default":
                continue
            own.setdefault(self.kind(child.tag), {}).update(child.attrib)
        self.classes[name] = own
        for child in el.findall("default"):
            if child.get("class") is None:
                raise self.doc.error(child, "a nested <default> needs a class attribute")
            self._read(child, child.get("class", ""), own)

    def attrs(self, el: ET.Element, childclass: str | None) -> dict[str, str]:
        """``el``'s attributes over those of its class (own ``class``, else ``childclass``, else main)."""
        name = el.get("class") or childclass or "main"
        if name not in self.classes:
            raise self.doc.error(el, "no <default> class of that name", "class" if el.get("class") else None)
        return {**self.classes[name].get(self.kind(el.tag), {}), **el.attrib}
