"""Robot-file formats as one table, :data:`FORMATS`: what crossdyn knows of each format, in one row.

A :class:`RobotFormat` row names the format's root element, its file suffixes, its reader (file → RobotModel), its
writer (RobotModel → text, or None), the suffix and preparer of the copy an engine loads
(:mod:`crossdyn.robots.prepare`), and the joint parameters the format cannot express (``gaps``) or cannot leave out
(``requires``: :mod:`crossdyn.audit.filediff`).  Functions are named ``"module:function"`` and imported when first
called, so this module (and :data:`ROBOT_SUFFIXES`, which the light command-line modules import) loads without
numpy or any reader.

Everything that depends on the format is a lookup here: :func:`format_of` (by root element), :func:`by_suffix`,
:data:`ROBOT_SUFFIXES` (the suffixes ``compare`` and ``identify`` take as robot files), :func:`read_robot`,
:func:`crossdyn.robots.prepare.prepare`, the audit's ``FORMAT_GAPS``/``FORMAT_REQUIRES``.  **Adding a format is one
reader plus one row** (and its :class:`~crossdyn.robots.format_enum.Format` member); each file-engine adapter that
loads the format natively adds it to its own ``formats`` and its loader (``crossdyn/engines/LIBRARY/file.py``).
An engine that cannot load a format natively refuses it (``unsupported_formats``, naming why): crossdyn does not hand it a
copy converted by its own writer, since that copy holds only what the RobotModel holds and would be compared as if
it were the user's file.

Every function takes the table as an optional last argument (default :data:`FORMATS`), so a new row can be tried
on a copy (``FORMATS + (row,)``) without touching this module (``tests/test_formats_table.py`` does).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from crossdyn.errors import InputError
from crossdyn.robots.format_enum import Format

if TYPE_CHECKING:
    from crossdyn.robots.model import RobotModel

__all__ = ["FORMATS", "Format", "ROBOT_SUFFIXES", "RobotFormat", "by_suffix", "format_of", "format_row",
           "read_robot", "robot_format", "suffixes"]


def resolve(ref: str) -> Callable[..., Any]:
    """The function ``"package.module:function"`` names (the module imported now)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class RobotFormat:
    """One robot-file format: everything crossdyn does differently per format (module docstring)."""

    format: Format
    name: str
    """As messages name it (``URDF``, ``MJCF``)."""
    root_tag: str
    """The root element of its files (``robot``, ``mujoco``): :func:`format_of` decides by it, not by suffix."""
    suffixes: tuple[str, ...]
    """File suffixes, lower case with the dot, that make ``compare``/``identify`` take an argument as a robot file."""
    reader: str
    """``"module:function"``: path → :class:`~crossdyn.robots.model.RobotModel`."""
    engine_suffix: str
    """The suffix of the copy an engine loads (and of the files written for a spatial arm)."""
    preparer: str
    """``"module:function"``: ``(src, dst, **options)`` → :class:`~crossdyn.robots.prepare.Prepared`, the engine copy."""
    writer: str | None = None
    """``"module:function"``: RobotModel → the file's text; None: crossdyn writes no such file."""
    gaps: frozenset[str] = frozenset()
    """Joint parameters the format cannot express (MJCF: no velocity limit)."""
    requires: frozenset[str] = frozenset()
    """Joint parameters the format cannot leave out (URDF: effort and velocity limits, urdfdom's rule)."""
    doc: str = ""
    """One line on the format."""

    def read(self, path: str | Path) -> RobotModel:
        """The file at ``path`` through this format's reader."""
        return resolve(self.reader)(path)

    def prepare(self, src: Path, dst: Path, **options: Any) -> Any:
        """The engine copy of ``src`` written at ``dst`` through this format's preparer: a
        :class:`~crossdyn.robots.prepare.Prepared` (not imported here: :mod:`~crossdyn.robots.prepare` imports this
        module)."""
        return resolve(self.preparer)(src, dst, **options)

    def write(self, model: RobotModel, **options: Any) -> str:
        """``model`` as this format's text; InputError when crossdyn has no writer for it."""
        if self.writer is None:
            raise InputError(f"{model.source}: crossdyn writes no {self.name} file", where=model.source)
        return resolve(self.writer)(model, **options)


FORMATS: tuple[RobotFormat, ...] = (
    RobotFormat(Format.URDF, "URDF", "robot", (".urdf",), "crossdyn.robots.urdf:read_urdf", ".urdf",
                "crossdyn.robots.prepare:prepare_urdf", "crossdyn.robots.write_urdf:write_urdf",
                requires=frozenset({"effort", "velocity"}),
                doc="ROS's Unified Robot Description Format: links, joints, no gravity, no armature."),
    RobotFormat(Format.MJCF, "MJCF", "mujoco", (".xml", ".mjcf"), "crossdyn.robots.mjcf:read_mjcf", ".xml",
                "crossdyn.robots.prepare:prepare_mjcf", "crossdyn.robots.write_mjcf:write_mjcf",
                gaps=frozenset({"velocity"}),
                doc="MuJoCo's XML: nested bodies, hinge and slide joints, defaults, no joint velocity limit."),
)
"""Every robot-file format crossdyn reads, one row each (module docstring)."""


def suffixes(table: Sequence[RobotFormat] = FORMATS) -> tuple[str, ...]:
    """Every suffix of every row, in table order."""
    return tuple(s for row in table for s in row.suffixes)


ROBOT_SUFFIXES = suffixes()
"""The suffixes that name a robot file (``.urdf``, ``.xml``, ``.mjcf``): ``compare`` and ``identify`` alike."""


def format_row(fmt: Format, table: Sequence[RobotFormat] = FORMATS) -> RobotFormat:
    """The row of ``fmt``."""
    for row in table:
        if row.format is fmt:
            return row
    raise KeyError(f"no robot-file format {fmt!r} in the table")


def by_suffix(suffix: str, table: Sequence[RobotFormat] = FORMATS) -> RobotFormat | None:
    """The row whose files end in ``suffix`` (a suffix or a file name, any case), or None."""
    s = suffix.lower()
    s = s if s.startswith(".") and "/" not in s else Path(s).suffix
    return next((row for row in table if s in row.suffixes), None)


def format_of(path: str | Path, table: Sequence[RobotFormat] = FORMATS) -> Format:
    """URDF or MJCF, from the root element of the file (``<robot>`` or ``<mujoco>``); InputError otherwise."""
    import xml.etree.ElementTree as ET

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such robot file", where=str(p))
    try:
        root = ET.parse(p).getroot()
    except ET.ParseError as e:
        raise InputError(f"{p}: not well-formed XML ({e})", where=str(p)) from None
    for row in table:
        if root.tag == row.root_tag:
            return row.format
    known = " nor ".join(f"<{row.root_tag}> ({row.name})" for row in table)
    raise InputError(f"{p}: root element <{root.tag}> is neither {known}", where=str(p), value=root.tag)


robot_format = format_of
"""The public name of :func:`format_of` (``crossdyn.robots.robot_format``)."""


def read_robot(path: str | Path, table: Sequence[RobotFormat] = FORMATS) -> RobotModel:
    """The robot file at ``path`` as a :class:`RobotModel` (URDF or MJCF, by its root element)."""
    return format_row(format_of(path, table), table).read(path)
