"""Read and write spatial arm specs (:class:`~crossdyn.models.spatial_spec.SpatialArmSpec`) as TOML.

A spatial spec is a TOML file with an ``[arm]`` table whose ``kind`` is ``"spatial"`` (planar specs have no
``[arm]`` table and are read by :mod:`crossdyn.models.spec_io` exactly as before).  All values SI, angles in rad::

    [arm]
    kind = "spatial"
    name = "my-scara"              # optional: the file's stem
    convention = "dh-standard"     # dh-standard (Spong: a, alpha, d, theta) | dh-modified (Craig: alpha, a, d,
                                   # theta) | origin (xyz, rpy, axis per joint, URDF's)
    gravity = [0.0, 0.0, -9.81]    # m/s^2, world frame (optional, this default)
    base_xyz = [0.0, 0.0, 0.0]     # m, frame 0 in the world (optional)
    base_rpy = [0.0, 0.0, 0.0]     # rad, URDF's roll, pitch, yaw (optional)

    [[joints]]                     # one per joint, base to tip
    type = "revolute"              # revolute | prismatic
    dh = [0.5, 3.141592653589793, 0.0, 0.0]   # the DH row, in the convention's column order
    # xyz = [..], rpy = [..], axis = [..]    # instead of dh, with convention = "origin"
    limits = [-2.5, 2.5]           # rad or m (optional)
    effort = 10.0                  # N m or N (optional)
    damping = 0.0                  # N m s/rad or N s/m (optional)
    armature = 0.0                 # kg m^2 or kg, added to M_ii (optional)
    name = "shoulder"              # optional: joint1, joint2, ...

    [[links]]                      # link i is moved by joint i; its values in frame i
    mass = 3.0                     # kg
    com = [-0.25, 0.0, 0.0]        # m
    inertia = [0.0024, 0.0, 0.0, 0.0637, 0.0, 0.0637]  # kg m^2 about the centre of mass: ixx ixy ixz iyy iyz izz,
                                                       # or a 3x3 list
    name = "upper_arm"             # optional

Or the whole chain from a URDF: ``[arm]`` with ``urdf = "robot.urdf"`` (relative to the TOML file) and no
``[[joints]]``/``[[links]]``; ``gravity`` and ``name`` may still be given.  Unknown keys are errors; every error
names the file, the line, the key (``joints[2].dh``) and the value.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from crossdyn.models.spatial_spec import Convention, JointKind, SpatialArmSpec, SpatialJoint, SpatialLink
from crossdyn.models.spec import SpecError

ARM_KEYS = ("kind", "name", "convention", "gravity", "base_xyz", "base_rpy", "urdf", "notes")
JOINT_KEYS = ("type", "dh", "xyz", "rpy", "axis", "limits", "effort", "damping", "armature", "name")
LINK_KEYS = ("mass", "com", "inertia", "name")
TOP_KEYS = ("arm", "joints", "links")


def _table(value: Any, where: str, source: str) -> dict:
    if not isinstance(value, dict):
        raise SpecError(f"{source}: {where}: must be a table, got {value!r}", where, value)
    return value


def _keys(table: dict, allowed: tuple[str, ...], where: str, source: str) -> None:
    extra = sorted(set(table) - set(allowed))
    if extra:
        raise SpecError(f"{source}: {where}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(allowed)}",
                        f"{where}.{extra[0]}", table[extra[0]])


def _joint(jd: Any, i: int, convention: Convention, source: str) -> SpatialJoint:
    where = f"joints[{i}]"
    jd = _table(jd, where, source)
    _keys(jd, JOINT_KEYS, where, source)
    if "type" not in jd:
        raise SpecError(f"{source}: {where}: missing key type (revolute or prismatic)", f"{where}.type")
    try:
        kind = JointKind(jd["type"])
    except ValueError:
        raise SpecError(f"{source}: {where}.type: unknown joint type {jd['type']!r}; crossdyn knows "
                        f"{', '.join(k.value for k in JointKind)}", f"{where}.type", jd["type"]) from None
    explicit = [k for k in ("xyz", "rpy", "axis") if k in jd]
    if convention is Convention.ORIGIN:
        if "dh" in jd:
            raise SpecError(f"{source}: {where}.dh: a DH row needs [arm] convention = \"dh-standard\" or "
                            "\"dh-modified\"; this arm's is \"origin\" (give xyz, rpy, axis)", f"{where}.dh", jd["dh"])
    else:
        if explicit:
            raise SpecError(f"{source}: {where}.{explicit[0]}: with convention = \"{convention.value}\" a joint is "
                            f"its DH row (dh = [{', '.join(convention.columns)}]), not xyz/rpy/axis",
                            f"{where}.{explicit[0]}", jd[explicit[0]])
        if "dh" not in jd:
            raise SpecError(f"{source}: {where}: missing key dh (the {convention.value} row: "
                            f"{', '.join(convention.columns)})", f"{where}.dh")
    defaults = SpatialJoint(kind)
    return SpatialJoint(kind, jd.get("dh"), jd.get("xyz", defaults.xyz), jd.get("rpy", defaults.rpy),
                        jd.get("axis", defaults.axis), jd.get("name", ""), jd.get("limits"), jd.get("effort"),
                        jd.get("damping", 0.0), jd.get("armature", 0.0))


def _link(ld: Any, i: int, source: str) -> SpatialLink:
    where = f"links[{i}]"
    ld = _table(ld, where, source)
    _keys(ld, LINK_KEYS, where, source)
    missing = [k for k in ("mass", "com", "inertia") if k not in ld]
    if missing:
        raise SpecError(f"{source}: {where}: missing key(s) {', '.join(missing)}", f"{where}.{missing[0]}")
    return SpatialLink(ld["mass"], ld["com"], ld["inertia"], ld.get("name", ""))


def _array(data: dict, key: str, source: str) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise SpecError(f"{source}: {key}: must be an array of tables ([[{key}]]), got {value!r}", key, value)
    return value


def _from_urdf(arm: dict, data: dict, source: str) -> SpatialArmSpec:
    from crossdyn.models.spatial_spec import from_robot_model
    from crossdyn.robots import read_robot

    given = [k for k in ("joints", "links") if k in data] + [k for k in ("convention", "base_xyz", "base_rpy")
                                                            if k in arm]
    if given:
        raise SpecError(f"{source}: {given[0]}: a spec read from a URDF ([arm] urdf = ...) takes its joints, links "
                        "and frames from the file", given[0] if given[0] in data else f"arm.{given[0]}")
    if not isinstance(arm["urdf"], str):
        raise SpecError(f"{source}: arm.urdf: must be a file path, got {arm['urdf']!r}", "arm.urdf", arm["urdf"])
    path = Path(source).parent / arm["urdf"]
    spec = from_robot_model(read_robot(path), arm.get("name"))
    return SpatialArmSpec(spec.joints, spec.links, spec.convention, arm.get("gravity", spec.gravity),
                          spec.name, arm.get("notes", spec.notes), source=str(path))


def spatial_spec_from_dict(data: dict, source: str = "spec") -> SpatialArmSpec:
    """Validate plain data (the TOML layout above) and build a :class:`SpatialArmSpec`; SpecError naming
    ``source``, the key (``joints[2].dh``, 1-based) and the value."""
    _keys(data, TOP_KEYS, "top level", source)
    arm = _table(data.get("arm"), "arm", source)
    _keys(arm, ARM_KEYS, "arm", source)
    if arm.get("kind") != "spatial":
        raise SpecError(f"{source}: arm.kind: unknown arm kind {arm.get('kind')!r}; an [arm] table is for "
                        "kind = \"spatial\" (planar specs have no [arm] table)", "arm.kind", arm.get("kind"))
    if "urdf" in arm:
        try:
            return _from_urdf(arm, data, source)
        except SpecError as e:
            raise SpecError(str(e) if str(e).startswith(source) else f"{source}: {e}", e.where, e.value) from None
    try:
        convention = Convention(arm.get("convention", Convention.DH_STANDARD.value))
    except ValueError:
        raise SpecError(f"{source}: arm.convention: unknown convention {arm['convention']!r}; known: "
                        f"{', '.join(c.value for c in Convention)}", "arm.convention", arm["convention"]) from None
    joints = tuple(_joint(jd, i, convention, source) for i, jd in enumerate(_array(data, "joints", source), 1))
    links = tuple(_link(ld, i, source) for i, ld in enumerate(_array(data, "links", source), 1))
    if not joints:
        raise SpecError(f"{source}: missing [[joints]]: a spatial arm needs at least one joint", "joints")
    kwargs = {k: arm[k] for k in ("gravity", "base_xyz", "base_rpy", "notes") if k in arm}
    try:
        return SpatialArmSpec(joints, links, convention, name=arm.get("name", Path(source).stem or "arm"),
                              source=source, **kwargs)
    except SpecError as e:
        where = e.where if e.where is None or "[" in str(e.where) or e.where in ("joints", "links") else \
            f"arm.{e.where}"
        raise SpecError(f"{source}: {e}", where, e.value) from None


_HEADER = re.compile(r"^\s*(\[\[?)\s*(\w+)\s*\]\]?\s*(#.*)?$")


def line_of(text: str, where: Any) -> int | None:
    """The line (1-based) of ``where`` (``joints[2].dh``, ``links[1].inertia[2]``, ``arm.convention``, ``joints``)
    in TOML ``text`` laid out as the module docstring shows; None where not found."""
    if not isinstance(where, str):
        return None
    m = re.fullmatch(r"(\w+)(?:\[(\d+)\])?(?:\.(\w+))?(?:\[\d+\])*", where)
    if not m:
        return None
    table, index, key = m.group(1), int(m.group(2) or 1), m.group(3)
    lines = text.splitlines()
    heads = [(i, h.group(2)) for i, line in enumerate(lines) if (h := _HEADER.match(line))]
    spans = [(i, end, name) for (i, name), end in zip(heads, [i for i, _ in heads[1:]] + [len(lines)], strict=True)]
    mine = [(lo, hi) for lo, hi, name in spans if name == table]
    if not 1 <= index <= len(mine):
        return None
    lo, hi = mine[index - 1]
    if key is not None:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for i in range(lo, hi):
            if pattern.match(lines[i]):
                return i + 1
    return lo + 1


def load_spatial_text(text: str, data: dict, path: str | Path) -> SpatialArmSpec:
    """The spatial spec of a TOML file already read (``text``, ``data``); SpecError with the file's line."""
    try:
        return spatial_spec_from_dict(data, str(path))
    except SpecError as e:
        line = line_of(text, e.where)
        prefix = f"{path}: "
        if line is None or not str(e).startswith(prefix) or str(e).startswith(f"{prefix}line "):
            raise
        raise SpecError(f"{path}: line {line}: {str(e)[len(prefix):]}", e.where, e.value) from None


def spatial_spec_to_dict(spec: SpatialArmSpec) -> dict:
    """The TOML layout of ``spec`` (defaults left out), so that :func:`spatial_spec_from_dict` gives it back."""
    arm: dict[str, Any] = {"kind": "spatial", "name": spec.name, "convention": spec.convention.value,
                           "gravity": list(spec.gravity)}
    if any(spec.base_xyz) or any(spec.base_rpy):
        arm.update(base_xyz=list(spec.base_xyz), base_rpy=list(spec.base_rpy))
    if spec.notes:
        arm["notes"] = spec.notes
    joints = []
    for j in spec.joints:
        jd: dict[str, Any] = {"type": j.type.value}
        if spec.convention is Convention.ORIGIN:
            jd.update(xyz=list(j.xyz), rpy=list(j.rpy), axis=list(j.axis))
        else:
            jd["dh"] = list(j.dh or ())
        for key, default in (("limits", None), ("effort", None), ("damping", 0.0), ("armature", 0.0), ("name", "")):
            value = getattr(j, key)
            if value != default:
                jd[key] = list(value) if isinstance(value, tuple) else value
        joints.append(jd)
    links = [{"mass": link.mass, "com": list(link.com), "inertia": list(link.inertia),
              **({"name": link.name} if link.name else {})} for link in spec.links]
    return {"arm": arm, "joints": joints, "links": links}


def dumps_spatial_spec(spec: SpatialArmSpec) -> str:
    """The spec as TOML text, a comment stating the convention's equation and DH column order."""
    import tomli_w

    head = [f"# crossdyn spatial arm spec: {spec.convention.equation}"]
    if spec.convention is not Convention.ORIGIN:
        head.append(f"# dh = [{', '.join(spec.convention.columns)}] (m, rad); the joint variable adds to theta "
                    "(revolute) or d (prismatic)")
    lines: list[str] = []
    for line in tomli_w.dumps(spatial_spec_to_dict(spec)).splitlines():  # arrays on one line
        if lines and lines[-1].endswith(("[", ",")) and (line.startswith(" ") or line == "]"):
            lines[-1] = (lines[-1].rstrip(",") + "]" if line == "]" else
                         lines[-1] + ("" if lines[-1].endswith("[") else " ") + line.strip())
            continue
        lines.append(line)
    return "\n".join(head + lines) + "\n"
