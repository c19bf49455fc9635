"""Read and write arm specs as TOML.

The format (all values SI)::

    name = "my-arm"
    gravity = [0.0, -9.81, 0.0]
    [[links]]
    length = 1.0     # m
    mass = 1.0       # kg
    com = 0.5        # m, centre of mass distance from the proximal joint, along the link
    inertia = 0.0833 # kg m^2, about the centre of mass, about z
    damping = 0.0    # N m s/rad, viscous, at the proximal joint (optional, default 0)
    friction = 0.0   # N m, Coulomb, at the proximal joint (optional, default 0)
    limits = [-3.14, 3.14]  # rad (optional)
    armature = 0.0   # kg m^2, reflected rotor inertia at the proximal joint, added to M_ii (optional, default 0)
    effort = 10.0    # N m, symmetric actuator limit: the commanded torque is saturated (optional, default none)
    limit_stiffness = 0.0  # N m/rad, compliant limit law beyond `limits` (optional; 0: limits not simulated)
    limit_damping = 0.0    # N m s/rad, its damping (optional, needs limit_stiffness > 0)

``name`` and ``gravity`` are optional (defaults: the file's stem, (0, −9.81, 0)).
Unknown keys are errors, so that a typo (``mas = 1``) cannot silently fall back to a default.
"""
from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from crossdyn.conventions import DEFAULT_GRAVITY, MAX_LINKS
from crossdyn.models.spec import ArmSpec, ContactSpec, LinkSpec, Obstacle, SpecError, SpecWarning

if TYPE_CHECKING:
    from crossdyn.models.spatial_spec import SpatialArmSpec

LINK_REQUIRED = ("length", "mass", "com", "inertia")
LINK_OPTIONAL = ("damping", "friction", "limits", "armature", "effort", "limit_stiffness", "limit_damping")
TOP_KEYS = ("name", "gravity", "links", "contact", "obstacles")
CONTACT_KEYS = ("radius", "stiffness", "damping", "friction")
OBSTACLE_KEYS = ("point", "normal")


def spec_from_dict(data: dict, source: str = "spec") -> ArmSpec:
    """Validate plain data (the TOML layout) and build an :class:`ArmSpec`.

    Errors name ``source``, the key path (``links[2].mass``, 1-based) and the value.
    """
    if not isinstance(data, dict):
        raise SpecError(f"{source}: expected a table, got {type(data).__name__}")
    extra = sorted(set(data) - set(TOP_KEYS))
    if extra:
        raise SpecError(f"{source}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(TOP_KEYS)}", extra[0])
    if "links" not in data:
        raise SpecError(f"{source}: missing [[links]]: an arm needs at least one link", "links")
    links_data = data["links"]
    if not isinstance(links_data, list):
        raise SpecError(f"{source}: links: must be an array of tables ([[links]]), got {links_data!r}", "links", links_data)
    if len(links_data) > MAX_LINKS:
        raise SpecError(f"{source}: links: {len(links_data)} links given; crossdyn supports at most {MAX_LINKS} "
                        "links per arm (MAX_LINKS in crossdyn/conventions.py)", "links", len(links_data))
    links = []
    with warnings.catch_warnings(record=True) as caught:  # re-issued below, naming the file
        warnings.simplefilter("always", SpecWarning)
        for i, ld in enumerate(links_data, start=1):
            links.append(_link_from_dict(ld, i, source))
    for w in caught:
        if issubclass(w.category, SpecWarning):
            warnings.warn(f"{source}: {w.message}", SpecWarning, stacklevel=2)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    contact = _contact_from_dict(data["contact"], source) if "contact" in data else None
    obstacles = _obstacles_from_list(data.get("obstacles", []), source)
    try:
        with warnings.catch_warnings():  # the links were validated (and warned about) above
            warnings.simplefilter("ignore", SpecWarning)
            return ArmSpec(tuple(links), data.get("gravity", DEFAULT_GRAVITY),
                           data.get("name", Path(source).stem or "arm"), contact=contact, obstacles=obstacles)
    except SpecError as e:
        raise SpecError(f"{source}: {e}", e.where, e.value) from None


def _link_from_dict(ld, i: int, source: str) -> LinkSpec:
    where = f"links[{i}]"
    if not isinstance(ld, dict):
        raise SpecError(f"{source}: {where}: must be a table, got {ld!r}", where, ld)
    missing = [k for k in LINK_REQUIRED if k not in ld]
    if missing:
        raise SpecError(f"{source}: {where}: missing key(s) {', '.join(missing)}", f"{where}.{missing[0]}")
    extra = sorted(set(ld) - set(LINK_REQUIRED) - set(LINK_OPTIONAL))
    if extra:
        raise SpecError(
            f"{source}: {where}: unknown key(s) {', '.join(extra)}; allowed: "
            f"{', '.join(LINK_REQUIRED + LINK_OPTIONAL)}", f"{where}.{extra[0]}")
    link = LinkSpec(ld["length"], ld["mass"], ld["com"], ld["inertia"], ld.get("damping", 0.0),
                    ld.get("friction", 0.0), ld.get("limits"), ld.get("armature", 0.0), ld.get("effort"),
                    ld.get("limit_stiffness", 0.0), ld.get("limit_damping", 0.0))
    try:
        link.validate(where)
    except SpecError as e:
        raise SpecError(f"{source}: {e}", e.where, e.value) from None
    return link




def _contact_from_dict(cd, source: str) -> ContactSpec:
    if not isinstance(cd, dict):
        raise SpecError(f"{source}: contact: must be a table ([contact]), got {cd!r}", "contact", cd)
    extra = sorted(set(cd) - set(CONTACT_KEYS))
    if extra:
        raise SpecError(f"{source}: contact: unknown key(s) {', '.join(extra)}; allowed: {', '.join(CONTACT_KEYS)}",
                        f"contact.{extra[0]}")
    missing = [k for k in ("stiffness",) if k not in cd]
    if missing:
        raise SpecError(f"{source}: contact: missing key stiffness (N/m, the tip sphere's contact stiffness)",
                        "contact.stiffness")
    c = ContactSpec(cd.get("radius", ContactSpec.radius), cd["stiffness"], cd.get("damping", 0.0),
                    cd.get("friction", 0.0))
    try:
        c.validate("contact")
    except SpecError as e:
        raise SpecError(f"{source}: {e}", e.where, e.value) from None
    return c


def _obstacles_from_list(obs, source: str) -> tuple[Obstacle, ...]:
    if not isinstance(obs, list):
        raise SpecError(f"{source}: obstacles: must be an array of tables ([[obstacles]]), got {obs!r}", "obstacles", obs)
    out = []
    for i, od in enumerate(obs, 1):
        where = f"obstacles[{i}]"
        if not isinstance(od, dict):
            raise SpecError(f"{source}: {where}: must be a table, got {od!r}", where, od)
        extra = sorted(set(od) - set(OBSTACLE_KEYS))
        if extra:
            raise SpecError(f"{source}: {where}: unknown key(s) {', '.join(extra)}; allowed: point, normal",
                            f"{where}.{extra[0]}")
        missing = [k for k in OBSTACLE_KEYS if k not in od]
        if missing:
            raise SpecError(f"{source}: {where}: missing key(s) {', '.join(missing)}", f"{where}.{missing[0]}")
        ob = Obstacle(od["point"], od["normal"])
        try:
            ob.validate(where)
        except SpecError as e:
            raise SpecError(f"{source}: {e}", e.where, e.value) from None
        out.append(ob)
    return tuple(out)


SPATIAL_ONLY_IN = "crossdyn info, export, derive, check, identify and compare"
"""The commands that take a spatial arm so far (the others refuse it with exit 2, naming the arm)."""


def spatial_refused(name: str, source: str) -> SpecError:
    """The error for a spatial arm where only a planar arm is taken (yet)."""
    return SpecError(f"{source}: arm {name!r} is a spatial arm ([arm] kind = \"spatial\"): this command takes "
                     f"planar arms only so far; {SPATIAL_ONLY_IN} take spatial arms", "arm.kind", "spatial")


@overload
def load_spec(path: str | os.PathLike, spatial: Literal[False] = False) -> ArmSpec: ...


@overload
def load_spec(path: str | os.PathLike, spatial: Literal[True]) -> ArmSpec | SpatialArmSpec: ...


def load_spec(path: str | os.PathLike, spatial: bool = False) -> ArmSpec | SpatialArmSpec:
    """Load a TOML arm spec; raise :class:`SpecError` naming the file, line or key, and value.

    A file with an ``[arm]`` table is a spatial spec (:mod:`crossdyn.models.spatial_spec_io`): returned with
    ``spatial=True``, refused (SpecError, exit 2) otherwise.  Planar specs (no ``[arm]`` table) are read as always.
    """
    from crossdyn.io import read_toml

    path = Path(path)
    text, data = read_toml(path, "arm spec", missing="no such file", error=SpecError)
    if "arm" in data:
        from crossdyn.models.spatial_spec_io import load_spatial_text

        arm = load_spatial_text(text, data, path)
        if not spatial:
            raise spatial_refused(arm.name, str(path))
        return arm
    try:
        return spec_from_dict(data, str(path))
    except SpecError as e:
        line = _line_of(text, e.where)
        prefix = f"{path}: "
        if line is None or not str(e).startswith(prefix):
            raise
        raise SpecError(f"{path}: line {line}: {str(e)[len(prefix):]}", e.where, e.value) from None


_TABLE = re.compile(r"^\s*(\[\[?)\s*(\w+)\s*\]\]?\s*(#.*)?$")


def _line_of(text: str, where) -> int | None:
    """The line (1-based) of the key ``where`` in TOML ``text``, if found.

    ``where`` is ``links[2].mass``, ``obstacles[1].normal``, ``contact.stiffness`` or a top-level key
    (``gravity``); only the layout the docs show is searched (``[[links]]``/``[[obstacles]]`` arrays of
    tables, a ``[contact]`` table, top-level keys first); None otherwise.
    """
    if not isinstance(where, str):
        return None
    m = re.fullmatch(r"(\w+)(?:\[(\d+)\])?(?:\.(\w+))?(?:\[\d+\])?", where)
    if not m:
        return None
    table, index, key = m.group(1), m.group(2), m.group(3)
    lines = text.splitlines()
    tables = [(i, mt.group(2), mt.group(1) == "[[") for i, line in enumerate(lines) if (mt := _TABLE.match(line))]
    ends = [i for i, _, _ in tables[1:]] + [len(lines)]
    named = [t for t in tables if t[1] == table]
    if table not in ("links", "obstacles", "contact") or (not named and key is None):
        key, lo, hi = table, 0, tables[0][0] if tables else len(lines)  # a top-level key: before the first table
    else:
        mine = [(i, end) for (i, name, _), end in zip(tables, ends, strict=False) if name == table]
        k = int(index) if index is not None else 1
        if not 1 <= k <= len(mine):
            return None
        lo, hi = mine[k - 1]
        if key is None:
            return lo + 1
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(lo, hi):
        if pattern.match(lines[i]):
            return i + 1
    return lo + 1 if lo > 0 or tables and tables[0][0] == 0 else None  # a key missing from a table: its header


_UNITS = {
    "gravity": "m/s^2",
    "length": "m",
    "mass": "kg",
    "com": "m, centre of mass distance from the proximal joint, along the link",
    "inertia": "kg m^2, about the centre of mass, about z",
    "damping": "N m s/rad, viscous, at the proximal joint",
    "friction": "N m, Coulomb, at the proximal joint",
    "limits": "rad",
    "armature": "kg m^2, reflected rotor inertia at the proximal joint (added to M_ii)",
    "effort": "N m, symmetric actuator effort limit (the commanded torque is saturated)",
    "limit_stiffness": "N m/rad, compliant limit law beyond limits",
    "limit_damping": "N m s/rad, compliant limit law beyond limits",
}


_CONTACT_UNITS = {
    "radius": "m, the sphere at the tip of the last link",
    "stiffness": "N/m, normal contact stiffness k",
    "damping": "N s/m, normal contact damping c (only while penetrating; the force never pulls)",
    "friction": "Coulomb coefficient mu at the tip (0 = frictionless)",
}
_OBSTACLE_UNITS = {
    "point": "m, a point on the obstacle's surface (z = 0)",
    "normal": "unit vector out of the obstacle; (p - point) . normal < 0 is inside",
}


def dumps_spec(spec: ArmSpec) -> str:
    """The spec as TOML text (written by tomli-w, so any name round-trips), with units in comments."""
    import tomli_w

    lines: list[str] = []
    for line in tomli_w.dumps(spec.to_dict()).splitlines():
        if lines and lines[-1].endswith(("[", ",")) and (line.startswith(" ") or line == "]"):
            if line == "]":  # arrays on one line
                lines[-1] = lines[-1].rstrip(",") + "]"
            else:
                lines[-1] = lines[-1] + ("" if lines[-1].endswith("[") else " ") + line.strip()
            continue
        lines.append(line)
    out, units = [], _UNITS
    for line in lines:
        table = _TABLE.match(line)
        if table:
            units = _CONTACT_UNITS if table.group(2) == "contact" else (
                _OBSTACLE_UNITS if table.group(2) == "obstacles" else _UNITS)
        key = line.split(" = ", 1)[0] if " = " in line else None
        out.append(f"{line}  # {units[key]}" if key in units else line)
    return "\n".join(out) + "\n"


def save_spec(spec: ArmSpec, path: str | os.PathLike) -> None:
    from crossdyn.io import write_text_atomic

    write_text_atomic(path, dumps_spec(spec))
