"""Reading a robot file's XML with line numbers, and its attributes as checked numbers.

:func:`parse_xml` builds an :mod:`xml.etree.ElementTree` tree with the standard library's expat parser and keeps
the line of every element, so that an error can say ``panda.urdf: line 48: joint 'panda_joint1' <axis xyz>: …``.
The attribute readers (:meth:`XmlDoc.number`, :meth:`XmlDoc.vector`) raise :class:`~crossdyn.errors.InputError`
naming the file, the line, the element and the value found; they accept what ``float()`` reads and nothing
non-finite (``nan``, ``inf``).
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from crossdyn.errors import InputError


@dataclass(frozen=True, eq=False)
class XmlDoc:
    """A parsed XML file: its path (as given), its root element, and the line of each element."""

    path: Path
    root: ET.Element
    lines: dict[ET.Element, int] = field(default_factory=dict)

    def at(self, el: ET.Element) -> str:
        """``"FILE: line N"`` for the element ``el`` (``"FILE"`` when its line is unknown)."""
        n = self.lines.get(el)
        return f"{self.path}: line {n}" if n is not None else f"{self.path}"

    def error(self, el: ET.Element, what: str, message: str, value=None) -> InputError:
        """An :class:`InputError` ``"FILE: line N: WHAT: MESSAGE"`` (``what`` names the element and its name)."""
        return InputError(f"{self.at(el)}: {what}: {message}", where=what, value=value)

    def number(self, el: ET.Element, attr: str, what: str, default: float | None = None,
               required: bool = False) -> float | None:
        """Attribute ``attr`` of ``el`` as a finite float; ``default`` when absent (an error if ``required``)."""
        raw = el.get(attr)
        if raw is None:
            if required:
                raise self.error(el, what, f"<{el.tag}> has no {attr}=\"…\" attribute (required)", None)
            return default
        try:
            x = float(raw)
        except ValueError:
            raise self.error(el, what, f"<{el.tag} {attr}=\"{raw}\">: not a number", raw) from None
        if not math.isfinite(x):
            raise self.error(el, what, f"<{el.tag} {attr}=\"{raw}\">: not a finite number", raw)
        return x

    def vector(self, el: ET.Element | None, attr: str, what: str, default: tuple[float, ...],
               size: int = 3) -> tuple[float, ...]:
        """Attribute ``attr`` of ``el`` as ``size`` finite floats separated by blanks; ``default`` when absent."""
        raw = None if el is None else el.get(attr)
        if el is None or raw is None:
            return default
        parts = raw.split()
        try:
            xs = tuple(float(s) for s in parts)
        except ValueError:
            raise self.error(el, what, f"<{el.tag} {attr}=\"{raw}\">: not {size} numbers", raw) from None
        if len(xs) != size:
            raise self.error(el, what, f"<{el.tag} {attr}=\"{raw}\">: {len(xs)} numbers, expected {size}", raw)
        if not all(math.isfinite(x) for x in xs):
            raise self.error(el, what, f"<{el.tag} {attr}=\"{raw}\">: not finite numbers", raw)
        return xs


def parse_xml(path: str | Path) -> XmlDoc:
    """Parse ``path`` with expat, keeping each element's line; InputError (with the line) when not well-formed."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"{p}: cannot read the robot file ({e.strerror or e})", where=str(p)) from None
    builder = ET.TreeBuilder()
    lines: dict[ET.Element, int] = {}
    parser = expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        lines[builder.start(tag, attrs)] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        why = expat.ErrorString(e.code) or "error"
        why = why[len("not well-formed ("):-1] if why.startswith("not well-formed (") else why
        raise InputError(f"{p}: line {e.lineno}: not well-formed XML: {why} (column {e.offset + 1})",
                         where=f"line {e.lineno}", value=e.lineno) from None
    return XmlDoc(p, builder.close(), lines)
