"""PyBullet imported once, quietly: its C library prints a build banner on standard error at import ("pybullet
build time: …") and URDF importer warnings on standard output; crossdyn's output carries neither (:func:`quiet`
silences the file descriptors around such calls)."""
from __future__ import annotations

import contextlib
import os
import sys


def _libc_fflush() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def quiet(*fds: int):
    """Silence C-level writes to file descriptors ``fds`` (PyBullet's build banner on 2, URDF importer
    warnings on 1); Python exceptions still propagate."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    saved = []
    try:
        for fd in fds:
            try:
                saved.append((fd, os.dup(fd)))
            except OSError:
                continue
        with open(os.devnull, "w") as devnull:
            for fd, _ in saved:
                os.dup2(devnull.fileno(), fd)
            try:
                yield
            finally:
                _libc_fflush()  # C stdio buffers (stdout may be a pipe) go to /dev/null, not the caller
    finally:
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)


with quiet(1, 2):
    import pybullet as p  # type: ignore[import-untyped,import-not-found,unused-ignore]  # noqa: E402

__all__ = ["p", "quiet"]
