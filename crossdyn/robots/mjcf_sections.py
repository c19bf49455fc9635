"""The MJCF sections around the bodies: what is refused (``<equality>``, ``<tendon>``, …), what is removed for the
comparison and listed in :attr:`RobotModel.removed` (``<actuator>`` entries, ``<contact>`` pairs and excludes,
``<keyframe>`` keys, ``<sensor>`` entries), the gravity of ``<option>`` and the mesh assets.

An actuator acting on a joint lends that joint its transmission ratio: ``gear``'s first entry becomes
:attr:`Joint.gear` (MuJoCo's joint force is gear × actuator force, whatever the actuator's type).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from crossdyn.robots.mjcf_xml import ACTUATOR_TAGS, Compiler, Defaults, Document, numbers
from crossdyn.robots.model import Note, Severity

REFUSED = {
    "equality": "equality constraints (closed loops, welds, coupled joints)",
    "tendon": "tendons",
    "deformable": "deformable bodies (flex, skin)",
}
REFUSED_IN_BODY = {
    "composite": "a composite (many generated bodies and joints)",
    "flexcomp": "a flex (deformable body)",
    "replicate": "a replicate (generated copies)",
    "attach": "an attached model",
    "plugin": "a body plugin",
}


def refuse_sections(doc: Document) -> None:
    """InputError naming the first entry of a section crossdyn cannot represent."""
    for tag, what in REFUSED.items():
        for section in doc.root.findall(tag):
            entries = [e for e in section if e.tag != "skin"]
            if entries:
                raise doc.error(entries[0], f"in <{tag}>: unsupported: {what} are not part of crossdyn's fixed-base tree "
                                            f"model (<{tag}> has {len(entries)} entr{'y' if len(entries) == 1 else 'ies'})")


def gravity(doc: Document) -> np.ndarray:
    """``<option gravity>`` (default 0 0 −9.81); zero where ``<flag gravity="disable">``."""
    g = np.array([0.0, 0.0, -9.81])
    for opt in doc.root.findall("option"):
        v = numbers(doc, opt, "gravity", 3)
        if v is not None:
            g = np.array(v)
        for flag in opt.findall("flag"):
            if flag.get("gravity") == "disable":
                g = np.zeros(3)
    return g


FLAG_EFFECTS = {
    "passive": "joint damping (and springs) are not applied",
    "frictionloss": "joint frictionloss is not applied",
    "limit": "joint limits are not enforced",
    "constraint": "no constraint (limits, frictionloss) is applied",
}


def option_notes(doc: Document) -> list[Note]:
    """AMBIGUOUS notes for ``<option><flag … ="disable">`` switches that make MuJoCo ignore joint parameters the
    model keeps (passive forces, frictionloss, limits, constraints)."""
    notes = []
    for opt in doc.root.findall("option"):
        for flag in opt.findall("flag"):
            for key, effect in FLAG_EFFECTS.items():
                if flag.get(key) == "disable":
                    notes.append(Note(f"{doc.at(flag)} <flag {key}=\"disable\">", f"MuJoCo simulating this file: "
                                      f"{effect}; crossdyn's model keeps the joints' values", Severity.AMBIGUOUS))
    return notes


def _fmt(values: list[float]) -> str:
    return " ".join(f"{v:g}" for v in values)


def _actuator_words(doc: Document, el: ET.Element, a: dict[str, str]) -> str:
    target = next((f"{k} {a[k]!r}" for k in ("joint", "jointinparent", "tendon", "site", "body") if k in a),
                  "no target")
    parts = [f"{el.tag} on {target}"]
    for key in ("gear", "kp", "kv", "gainprm", "biasprm", "ctrlrange", "forcerange"):
        v = numbers(doc, el, key, attrs=a)
        if v is not None:
            parts.append(f"{key} {_fmt(v)}")
    return f"{el.get('name') or doc.at(el)} ({', '.join(parts)})"


@dataclass
class Actuation:
    """What the ``<actuator>`` section says about the joints, and the removed-list line."""

    removed: list[str]
    gears: dict[str, float]
    """Per joint: the first actuator's ``gear[0]``."""
    efforts: dict[str, float]
    """Per joint: the smallest |gear| · max(|forcerange|) of its force-limited actuators (MuJoCo clamps the
    actuator force to ``forcerange``; the joint torque is gear × force)."""
    notes: list[Note]


def _force_limit(doc: Document, el: ET.Element, a: dict[str, str], c: Compiler) -> float | None:
    mode = a.get("forcelimited", "auto")
    if mode == "false" or (mode == "auto" and not (c.autolimits and "forcerange" in a)):
        return None
    r = numbers(doc, el, "forcerange", 2, attrs=a)
    if r is None:
        raise doc.error(el, "forcelimited=\"true\" without forcerange", "forcelimited")
    return max(abs(r[0]), abs(r[1]))


def actuators(doc: Document, defaults: Defaults, joints: set[str], c: Compiler) -> Actuation:
    """The ``<actuator>`` entries: the removed-list line, each joint's gear (first actuator on it) and effort
    limit, notes (two actuators with different gears on one joint)."""
    words: list[str] = []
    gears: dict[str, float] = {}
    efforts: dict[str, float] = {}
    notes: list[Note] = []
    for section in doc.root.findall("actuator"):
        for el in section:
            if el.tag not in ACTUATOR_TAGS:
                continue
            a = defaults.attrs(el, None)
            words.append(_actuator_words(doc, el, a))
            target = a.get("joint") or a.get("jointinparent")
            if target is None:
                continue
            if target not in joints:
                raise doc.error(el, "no joint of that name", "joint" if "joint" in a else "jointinparent")
            gear = (numbers(doc, el, "gear", attrs=a) or [1.0])[0]
            if target in gears and gears[target] != gear:
                notes.append(Note(f"joint {target!r}", f"actuators with gears {gears[target]:g} and {gear:g}: "
                                                       f"the first is the joint's gear", Severity.SUSPECT))
            gears.setdefault(target, gear)
            force = _force_limit(doc, el, a, c)
            if force is not None:
                efforts[target] = min(efforts.get(target, np.inf), abs(gear) * force)
    lines = [f"<actuator>: {len(words)} actuator{'s' * (len(words) != 1)} removed (τ is applied directly): "
             + "; ".join(words)] if words else []
    return Actuation(lines, gears, efforts, notes)


def other_removed(doc: Document) -> list[str]:
    """The removed-list lines for ``<contact>`` pairs/excludes, ``<keyframe>`` keys and ``<sensor>`` entries."""
    out = []
    pairs = [e for s in doc.root.findall("contact") for e in s if e.tag == "pair"]
    excludes = [e for s in doc.root.findall("contact") for e in s if e.tag == "exclude"]
    if pairs or excludes:
        out.append(f"<contact>: {len(pairs)} pair{'s' * (len(pairs) != 1)} and {len(excludes)} "
                   f"exclude{'s' * (len(excludes) != 1)} removed (no contact in the comparison)")
    keys = [e for s in doc.root.findall("keyframe") for e in s if e.tag == "key"]
    if keys:
        names = ", ".join(k.get("name") or doc.at(k) for k in keys)
        out.append(f"<keyframe>: {len(keys)} key{'s' * (len(keys) != 1)} removed ({names})")
    sensors = [e for s in doc.root.findall("sensor") for e in s]
    if sensors:
        names = ", ".join(f"{e.tag} {e.get('name') or doc.at(e)}" for e in sensors)
        out.append(f"<sensor>: {len(sensors)} sensor{'s' * (len(sensors) != 1)} removed ({names})")
    return out


@dataclass(frozen=True)
class Mesh:
    """A ``<mesh>`` asset: its element, and its file (None for a mesh given by vertices)."""

    element: ET.Element
    file: Path | None


def meshes(doc: Document, c: Compiler) -> dict[str, Mesh]:
    """The mesh assets by name (a mesh without a name is named after its file, extension dropped)."""
    out = {}
    for asset in doc.root.findall("asset"):
        for el in asset.findall("mesh"):
            f = el.get("file")
            name = el.get("name") or (Path(f).stem if f else "")
            path = None if f is None else (Path(f) if Path(f).is_absolute() else c.meshdir / f)
            out[name] = Mesh(el, path)
    return out


def missing_mesh_notes(doc: Document, assets: dict[str, Mesh], shown: int = 5) -> list[Note]:
    """One INFO note naming the mesh files that do not exist (harmless: the reader refuses a body whose inertia
    would come from one, so none enters the dynamics; the engines load a copy without the geoms and assets that
    name them, :func:`crossdyn.robots.prepare.prepare_mjcf`)."""
    files = [m for m in assets.values() if m.file is not None]
    missing = [m.element.get("file", "") for m in files if m.file is not None and not m.file.is_file()]
    if not missing:
        return []
    more = f" and {len(missing) - shown} more" if len(missing) > shown else ""
    first = next(m for m in files if m.file is not None and not m.file.is_file())
    return [Note(f"{doc.at(first.element)} <mesh file>",
                 f"{len(missing)} of {len(files)} mesh files not found: {', '.join(missing[:shown])}{more} (not "
                 "needed: every body whose geoms use them states its <inertial>, so no inertia is derived from "
                 "them; the engines load a copy without those geoms and mesh assets)", Severity.INFO)]
