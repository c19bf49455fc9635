"""The copy of a robot file an engine loads: only what rigid-body dynamics needs, everything removed listed.

URDF: ``<visual>``, ``<collision>``, ``<transmission>`` and ``<gazebo>`` are removed (meshes do not enter rigid-body
dynamics when every link has an ``<inertial>``, and a missing ``package://`` mesh stops some loaders).  With
``keep_collision=True`` (PyBullet without ``URDF_USE_INERTIA_FROM_FILE``, which derives inertias from the collision
shapes) the collisions stay, their relative mesh paths made absolute.

MJCF: ``<actuator>``, ``<contact>``, ``<keyframe>``, ``<sensor>`` are removed; in a body with an explicit
``<inertial>`` (and ``inertiafromgeom`` not "true") the mesh geoms are removed and the others get ``contype="0"
conaffinity="0"`` (no collisions), while a body whose inertia comes from its geoms keeps them as written (Pinocchio's
MJCF parser counts a geom with contype = conaffinity = 0 as visual and leaves its mass out: measured 17 % on M).
Mesh geoms of the world and of the bodies welded to it are removed too (static: no dynamics), and so is every
``<mesh>`` asset no geom left uses (MuJoCo opens every mesh asset's file when it loads: a file copied without its
meshes folder loads when every body that uses them states its inertial).
The engines switch contact off themselves (MuJoCo ``mjDSBL_CONTACT``; the others never simulate it here).  Relative asset folders and
``<include>`` files are made absolute so the copy loads from another folder.

:func:`prepared_copy` returns the path of the copy; :func:`prepare` the path and what it removed (in words, for the
engine's ``config()``).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crossdyn.errors import InputError
from crossdyn.robots.formats import format_row
from crossdyn.robots.model import RobotModel

URDF_REMOVED = ("visual", "collision", "transmission", "gazebo")
MJCF_REMOVED = ("actuator", "contact", "keyframe", "sensor")


@dataclass(frozen=True)
class Prepared:
    """The copy's path and what was taken out of the original (in words)."""

    path: Path
    removed: tuple[str, ...]


def _parse(path: Path) -> tuple[Any, ET.Element]:
    try:
        tree = ET.parse(path)
    except (ET.ParseError, OSError) as e:
        raise InputError(f"{path}: cannot read robot file ({e})", where=str(path)) from None
    root = tree.getroot()
    if root is None:
        raise InputError(f"{path}: empty robot file", where=str(path))
    return tree, root


def _count_remove(parent: ET.Element, tag: str) -> int:
    """Remove every ``tag`` element below ``parent`` (any depth); how many."""
    count = 0
    for el in list(parent.iter()):
        for child in [c for c in el if c.tag == tag]:
            el.remove(child)
            count += 1
    return count


def _absolute(base: Path, filename: str) -> str:
    if "://" in filename or Path(filename).is_absolute():
        return filename
    return str((base / filename).resolve())


def resolve_package(base: Path, filename: str) -> str | None:
    """A mesh ``filename`` as an absolute path that exists, or None: ``package://PKG/rest`` is looked for in the
    ancestors of ``base`` (a folder named PKG, or one holding PKG); a relative path is taken from ``base``."""
    if filename.startswith("package://"):
        pkg, _, rest = filename[len("package://"):].partition("/")
        for folder in (base, *base.parents):
            for root in (folder, folder / pkg):
                if root.name == pkg and (root / rest).is_file():
                    return str((root / rest).resolve())
        return None
    if filename.startswith("file://"):
        filename = filename[len("file://"):]
    path = Path(_absolute(base, filename))
    return str(path) if path.is_file() else None


def _keep_collisions(root: ET.Element, base: Path) -> int:
    """Collision meshes made absolute; a collision whose mesh cannot be found is removed (how many)."""
    dropped = 0
    for link in root.iter("link"):
        for col in [c for c in link if c.tag == "collision"]:
            mesh = col.find("geometry/mesh")
            if mesh is None or "filename" not in mesh.attrib:
                continue
            found = resolve_package(base, mesh.attrib["filename"])
            if found is None:
                link.remove(col)
                dropped += 1
            else:
                mesh.set("filename", found)
    return dropped


def prepare_urdf(src: Path, dst: Path, keep_collision: bool = False, extra: ET.Element | None = None) -> Prepared:
    """Write the URDF ``src`` without visuals (and collisions unless kept), transmissions and gazebo blocks."""
    tree, root = _parse(src)
    removed = []
    for tag in URDF_REMOVED:
        if tag == "collision" and keep_collision:
            k = _keep_collisions(root, src.parent)
            if k:
                removed.append(f"{k} <collision> whose mesh file was not found")
            continue
        k = _count_remove(root, tag)
        if k:
            removed.append(f"{k} <{tag}>")
    if extra is not None:
        own = [c for c in root if c.tag == extra.tag]
        for block in own:  # the file's own <mujoco> block: replaced by the engine's, its content listed
            root.remove(block)
            removed.append(f"the file's <{block.tag}> block ({ET.tostring(block, encoding='unicode').strip()}), "
                           "replaced by the engine's")
        root.insert(0, extra)
    tree.write(dst, encoding="unicode")
    return Prepared(dst, tuple(removed))


def _inertia_from_geom(root: ET.Element) -> str:
    comp = root.find("compiler")
    return "auto" if comp is None else comp.get("inertiafromgeom", "auto")


def _absolute_assets(root: ET.Element, base: Path) -> None:
    comp = root.find("compiler")
    if comp is None:
        comp = ET.Element("compiler")
        root.insert(0, comp)
    for key in ("meshdir", "texturedir", "assetdir"):
        if key in comp.attrib:
            comp.set(key, _absolute(base, comp.attrib[key]))
    if not any(k in comp.attrib for k in ("meshdir", "texturedir", "assetdir")):
        comp.set("assetdir", str(base.resolve()))
    for inc in root.iter("include"):
        if "file" in inc.attrib:
            inc.set("file", _absolute(base, inc.attrib["file"]))


def mesh_asset_name(mesh: ET.Element) -> str:
    """A ``<mesh>`` asset's name: its ``name``, else its file name without the extension (MuJoCo's rule)."""
    return mesh.get("name") or Path(mesh.get("file", "")).stem


def drop_unused_meshes(root: ET.Element, base: Path) -> tuple[int, int]:
    """Remove every ``<mesh>`` asset that no ``<geom>`` left in the copy names (MuJoCo opens every mesh asset's file
    when it loads, used or not: a copy without the meshes folder would fail on meshes that enter no dynamics).
    Returns (how many were removed, how many of those name a file that does not exist beside ``base``)."""
    used = {g.get("mesh") for g in root.iter("geom") if g.get("mesh")}
    removed = missing = 0
    for asset in root.iter("asset"):
        for mesh in [m for m in asset if m.tag == "mesh" and mesh_asset_name(m) not in used]:
            asset.remove(mesh)
            removed += 1
            missing += bool(mesh.get("file")) and not _mesh_file(root, base, mesh.get("file", "")).is_file()
    return removed, missing


def _mesh_file(root: ET.Element, base: Path, file: str) -> Path:
    """Where MuJoCo looks for a mesh ``file``: beside ``base``, under the compiler's meshdir (or assetdir)."""
    comp = root.find("compiler")
    folder = "" if comp is None else comp.get("meshdir", comp.get("assetdir", ""))
    return Path(file) if Path(file).is_absolute() else base / folder / file


def _is_mesh(geom: ET.Element) -> bool:
    return geom.get("type") == "mesh" or "mesh" in geom.attrib


def _welded(world: ET.Element | None) -> set[int]:
    """The ids of the bodies welded to the world: no joint in them or in any body above them (their mass enters no
    dynamics, whatever their geoms)."""
    out: set[int] = set()
    stack = [] if world is None else [b for b in world if b.tag == "body"]
    while stack:
        body = stack.pop()
        if not any(c.tag in ("joint", "freejoint") for c in body):
            out.add(id(body))
            stack += [b for b in body if b.tag == "body"]
    return out


def _strip_geoms(root: ET.Element, from_geom: bool) -> tuple[int, int, int, list[str]]:
    """Mesh geoms removed where they enter no dynamics (bodies with an explicit ``<inertial>``; the world and the
    bodies welded to it), the other geoms there made collision-free; bodies whose inertia comes from their geoms
    kept as written.  Returns (mesh geoms removed from moving bodies, from static ones, geoms made collision-free,
    the bodies kept as written)."""
    dropped = off = static = 0
    geometric = []
    world = root.find("worldbody")
    welded = _welded(world)
    for geom in [] if world is None else [g for g in world if g.tag == "geom"]:  # static: no inertia to derive
        if _is_mesh(geom) and world is not None:
            world.remove(geom)
            static += 1
            continue
        geom.set("contype", "0")
        geom.set("conaffinity", "0")
        off += 1
    for body in root.iter("body"):
        if id(body) in welded and (from_geom or body.find("inertial") is None):
            for geom in [g for g in body if g.tag == "geom" and _is_mesh(g)]:
                body.remove(geom)
                static += 1
        if from_geom or body.find("inertial") is None:
            geometric.append(body.get("name", "?"))
            continue
        for geom in [g for g in body if g.tag == "geom"]:
            if _is_mesh(geom):
                body.remove(geom)
                dropped += 1
            else:
                geom.set("contype", "0")
                geom.set("conaffinity", "0")
                off += 1
    return dropped, static, off, geometric


def prepare_mjcf(src: Path, dst: Path) -> Prepared:
    """Write the MJCF ``src`` without actuators, contact pairs/excludes, keyframes, sensors and collisions."""
    tree, root = _parse(src)
    removed = []
    for tag in MJCF_REMOVED:
        k = _count_remove(root, tag)
        if k:
            removed.append(f"{k} <{tag}>")
    dropped, static, off, geometric = _strip_geoms(root, _inertia_from_geom(root) == "true")
    if dropped:
        removed.append(f"{dropped} mesh <geom> in bodies with an explicit <inertial>")
    if static:
        removed.append(f"{static} mesh <geom> in the world and in bodies welded to it (static: no dynamics)")
    if off:
        removed.append(f"collisions of {off} <geom> in the world and in bodies with an explicit <inertial> "
                       "(contype=conaffinity=0)")
    unused, missing = drop_unused_meshes(root, src.parent)
    if unused:
        removed.append(f"{unused} <mesh> asset(s) no geom left in the copy uses"
                       + (f" ({missing} of them name a file that does not exist)" if missing else ""))
    if geometric:
        removed.append(f"nothing in the bodies whose inertia comes from their geoms ({', '.join(geometric)}): "
                       "their geoms kept as written (Pinocchio counts a geom with contype=conaffinity=0 as visual "
                       "and leaves its mass out)")
    _absolute_assets(root, src.parent)
    tree.write(dst, encoding="unicode")
    return Prepared(dst, tuple(removed))


def prepared_copy(model: RobotModel, folder: str | Path, for_engine: str) -> Path:
    """The path of the copy of ``model.source`` engine ``for_engine`` loads (:func:`prepare`'s defaults)."""
    return prepare(model, folder, for_engine).path


def prepare(model: RobotModel, folder: str | Path, for_engine: str, keep_collision: bool = False,
            urdf_extra: ET.Element | None = None) -> Prepared:
    """The copy of ``model.source`` that engine ``for_engine`` loads, written in ``folder`` (see the module
    docstring).  ``urdf_extra``: an element inserted first in a URDF's ``<robot>`` (MuJoCo's ``<mujoco>`` block)."""
    src = Path(model.source)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    row = format_row(model.format)
    dst = folder / f"{src.stem}.{for_engine}{row.engine_suffix}"
    options = {"keep_collision": keep_collision, "extra": urdf_extra}  # URDF's only: given to a preparer when set
    return row.prepare(src, dst, **{k: v for k, v in options.items() if v is not None and v is not False})
