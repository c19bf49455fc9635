"""File helpers: every input is read with errors that name the file; every output is written atomically
(temporary file, then rename)."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


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
    """The text of an input file; :class:`~crossdyn.models.spec.SpecError` naming the file otherwise.

    ``what`` names the kind of file in messages ("tolerance file"); ``missing`` replaces the
    message for a file that does not exist.
    """
    from crossdyn.models.spec import SpecError

    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{path}: {missing or f'no such {what}'}", str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"{path}: cannot read {what}: {e}", str(path)) from None


def parse_toml(text: str, path: str | os.PathLike) -> dict:
    """TOML text as a dict; :class:`~crossdyn.models.spec.SpecError` with the file and line otherwise."""
    import tomllib

    from crossdyn.models.spec import SpecError

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}", str(path)) from None
