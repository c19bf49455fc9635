"""File helpers: every input is read with errors that name the file; every output is written atomically
(temporary file, then rename)."""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any


from crossdyn.errors import CrossdynError, InputError, UsageError  # noqa: E402,F401  (re-exported)


def _first_existing(path):
    """``path`` or its nearest existing ancestor."""
    from pathlib import Path

    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _unwritable_dir(out) -> str | None:
    """Why files cannot be written into directory ``out`` (created if missing), or None if they can."""
    import os
    import tempfile
    from pathlib import Path

    out = Path(out)
    found = _first_existing(out)
    if not found.is_dir():
        if found == out:
            return "is a file, not a directory"
        return f"cannot be created: {found} is a file, not a directory"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"cannot create the directory: {e.strerror or e}"
    try:
        fd, probe = tempfile.mkstemp(prefix=".crossdyn-write-test.", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return f"cannot create files in {out}: {e.strerror or e}"
    return None


def check_out_dir(path, option: str = "--out") -> None:
    """Raise :class:`UsageError` (exit 2) unless files can be written into directory ``path`` (created if needed)."""
    why = _unwritable_dir(path)
    if why:
        raise UsageError(f"{option} {path}: {why}")


def check_out_file(path, option: str) -> None:
    """Raise :class:`UsageError` (exit 2) unless the file ``path`` can be written (atomically, in its directory)."""
    from pathlib import Path

    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a file name")
    why = _unwritable_dir(p.parent)
    if why:
        why = why.replace("cannot be created: ", "")
        if why == "is a file, not a directory":
            why = f"{p.parent} is a file, not a directory"
        elif why.startswith("cannot create the directory"):
            why = f"cannot create its directory {p.parent}: {why.split(': ', 1)[1]}"
        raise UsageError(f"{option} {path}: cannot write it: {why}")


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same directory and ``os.replace``.

    An interrupted write leaves either the old file or none, never half a file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp creates 0600; written files get the usual permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike, data: Any) -> Path:
    return write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False, allow_nan=False) + "\n")


def read_input_text(path: str | os.PathLike, what: str, missing: str | None = None) -> str:
    """The text of an input file; :class:`InputError` naming the file otherwise.

    ``what`` names the kind of file in messages ("tolerance file"); ``missing`` replaces the
    message for a file that does not exist.
    """
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: {missing or f'no such {what}'}", str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read {what}: {e}", str(path)) from None


def read_toml(path: str | os.PathLike, what: str, missing: str | None = None,
              error: type[InputError] = InputError) -> tuple[str, dict]:
    """(text, data) of a TOML input file; ``error`` (an :class:`InputError`) naming the file, and the line for a
    syntax error, otherwise.  ``what`` and ``missing`` as for :func:`read_input_text`."""
    try:
        text = read_input_text(path, what, missing)
        return text, parse_toml(text, path)
    except InputError as e:
        if error is InputError:
            raise
        raise error(str(e), e.where, e.value) from None


def number_cell(cell: str, where: str, error: type[Exception] = InputError) -> float:
    """A table cell (CSV) as a finite float; ``error`` naming ``where`` (file, line, column) and the cell otherwise."""
    try:
        x = float(cell)
    except ValueError:
        raise error(f"{where}: not a number: {cell!r}") from None
    if not math.isfinite(x):
        raise error(f"{where}: must be finite, got {cell!r}")
    return x


def parse_toml(text: str, path: str | os.PathLike) -> dict:
    """TOML text as a dict; :class:`InputError` with the file and line otherwise."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: not valid TOML: {e}", str(path)) from None
