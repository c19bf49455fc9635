"""What a URDF says beyond links and joints: transmissions, simulator extensions, mesh files.

* :func:`transmission_gears` — ``<transmission>`` with one joint: ``mechanicalReduction`` (under ``<actuator>``,
  or directly under ``<transmission>`` in the old ROS format) becomes that joint's gear.
* :func:`extension_notes` — ``<gazebo>`` elements and PyBullet's ``<contact>`` inside a link are not rigid-body
  dynamics: INFO Notes, and the contact parameters are listed as removed from the comparison.
* :func:`mesh_notes` — mesh files of ``<visual>``/``<collision>`` that cannot be found (relative to the file, or
  ``package://PKG/…`` under a folder ``PKG`` next to the file or next to one of its parent folders, or the part
  after ``package://`` relative to the file, as PyBullet resolves it): one INFO Note.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from crossdyn.robots.model import Note, Severity
from crossdyn.robots.urdf_xml import XmlDoc

SHOWN = 5
"""How many missing mesh files a Note names before "and N more"."""


def _reduction(t: ET.Element) -> tuple[float | None, str | None]:
    """The transmission's reduction, or (None, the text) where its text is not a finite nonzero number (an
    unexpanded xacro value such as ``reduction``)."""
    el = t.find("actuator/mechanicalReduction")
    if el is None:
        el = t.find("mechanicalReduction")
    if el is None or not (el.text or "").strip():
        return None, None
    raw = (el.text or "").strip()
    try:
        x = float(raw)
    except ValueError:
        x = float("nan")
    if x == 0.0 or x != x or abs(x) == float("inf"):
        return None, raw
    return x, None


def unread_note(unread: dict[str, list[str]]) -> list[Note]:
    """One SUSPECT note for the transmissions whose reduction is not a number (``unread``: the text → the
    transmissions): the file is read without them rather than refused, because a reduction scales the actuator's
    command only and enters none of M, G, C·q̇ or inverse dynamics (the joint's gear stays 1)."""
    if not unread:
        return []
    count = sum(len(v) for v in unread.values())
    said = "; ".join(f"\"{raw}\" in {', '.join(names)}" for raw, names in unread.items())
    return [Note(f"<mechanicalReduction> of {count} transmission(s)",
                 f"not a finite nonzero number ({said}; an unexpanded xacro value?): not read, the joints' gear "
                 "stays 1 (a reduction scales the actuator's command only: it enters none of M, G, C·q̇ or "
                 "inverse dynamics)", Severity.SUSPECT)]


def transmission_gears(doc: XmlDoc, moving: dict[str, bool]) -> tuple[dict[str, float], list[Note]]:
    """Per joint name, the reduction of the one ``<transmission>`` driving it; Notes for what is not read.

    ``moving`` maps every joint name of the file to True for a moving joint, False for a fixed one."""
    gears: dict[str, float] = {}
    notes: list[Note] = []
    unread: dict[str, list[str]] = {}
    for t in doc.root.findall("transmission"):
        what = f"transmission '{t.get('name', '')}'"
        names = [j.get("name", "") for j in t.findall("joint")]
        reduction, raw = _reduction(t)
        if raw is not None:
            unread.setdefault(raw, []).append(f"'{t.get('name', '')}' (line {doc.lines.get(t)})")
        if reduction is None:
            continue
        if len(names) != 1:
            notes.append(Note(what, f"drives {len(names)} joints ({', '.join(names)}): a coupled transmission, "
                                    f"its reduction {reduction:g} is not read"))
        elif names[0] not in moving:
            notes.append(Note(what, f"names joint '{names[0]}', which is not in the file: ignored"))
        elif not moving[names[0]]:
            notes.append(Note(what, f"drives the fixed joint '{names[0]}': ignored"))
        elif names[0] in gears and gears[names[0]] != reduction:
            notes.append(Note(what, f"a second transmission for joint '{names[0]}' (reduction {reduction:g}, "
                                    f"first {gears[names[0]]:g}): the first is kept"))
        else:
            gears.setdefault(names[0], reduction)
    return gears, notes + unread_note(unread)


def extension_notes(doc: XmlDoc) -> tuple[list[Note], list[str]]:
    """INFO Notes for ``<gazebo>`` elements and PyBullet ``<contact>`` in links; the removed contact settings."""
    notes: list[Note] = []
    removed: list[str] = []
    gazebo = doc.root.findall("gazebo")
    if gazebo:
        notes.append(Note("<gazebo>", f"{len(gazebo)} <gazebo> element(s) ignored (Gazebo's own settings)"))
    for link in doc.root.findall("link"):
        for c in link.findall("contact"):
            values = ", ".join(f"{e.tag} {e.get('value')}" if e.get("value") is not None else e.tag for e in c)
            where = f"link '{link.get('name')}' <contact>"
            notes.append(Note(where, f"PyBullet contact settings ({values}) not part of the rigid-body model: "
                                     "removed for the comparison"))
            removed.append(f"PyBullet <contact> of link '{link.get('name')}' ({values})")
    return notes, removed


def resolve_mesh(filename: str, folder: Path) -> Path | None:
    """The existing file a mesh ``filename`` of a URDF in ``folder`` names, or None (see the module docstring)."""
    if filename.startswith("file://"):
        candidates = [Path(filename[len("file://"):])]
    elif filename.startswith("package://"):
        pkg, _, sub = filename[len("package://"):].partition("/")
        candidates = [folder / pkg / sub]
        for a in (folder, *folder.parents):
            candidates += [a / pkg / sub] + ([a / sub] if a.name == pkg else [])
    elif "://" in filename:
        return None
    else:
        candidates = [folder / filename]
    return next((c for c in candidates if c.is_file()), None)


def mesh_notes(doc: XmlDoc) -> list[Note]:
    """One INFO Note naming the mesh files of ``<visual>``/``<collision>`` that cannot be found (none if all are)."""
    folder = doc.path.resolve().parent
    found, missing = 0, []
    for link in doc.root.findall("link"):
        for mesh in link.findall("./*/geometry/mesh"):
            name = mesh.get("filename", "")
            if resolve_mesh(name, folder) is None:
                missing.append(f"'{name}' (link '{link.get('name')}', line {doc.lines.get(mesh)})")
            else:
                found += 1
    if not missing:
        return []
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    return [Note("<mesh filename>", f"{len(missing)} of {len(missing) + found} mesh files not found: "
                                    f"{', '.join(missing[:SHOWN])}{more}. Visual and collision geometry does not "
                                    "enter the rigid-body model read here (PyBullet without "
                                    "URDF_USE_INERTIA_FROM_FILE derives inertias from collision shapes)")]
