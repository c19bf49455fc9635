"""Which of the user's functions is running now, for whoever has to stop a check that does not return.

A grader (:mod:`crossdyn.checking.grading`) that kills a submission's check at its timeout cannot ask the dead
process what it was doing, so the check says it as it goes: when the environment variable :data:`ENV` names a file,
the check maps that file (:data:`SIZE` bytes) and writes into it, before each call of a user's function, the call
(``C(q, qd, p)``; ``importing the file`` while the file's top level runs) and clears it when the call returns.  A
write is a store into shared memory (no system call), so the thousands of calls of a check cost microseconds; the
file's contents survive the process being killed.  Octave writes the same file from
``crossdyn_batch__``/``crossdyn_one__`` before each of the user's functions (:func:`octave_setup`), and so does the
sandboxed Python worker (:mod:`crossdyn.equations.python_worker`) before each call of the user's code: the file is
bound read-write into their sandbox (:func:`for_child`), the one thing outside their folder they may write.

Without :data:`ENV` nothing is written (``crossdyn check FILE`` alone, engines).
"""
from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator
from pathlib import Path

ENV = "CROSSDYN_PROGRESS"
SIZE = 128
"""Bytes of the progress file: the text of the call, UTF-8, NUL-padded (longer text is cut)."""


class _Progress:
    def __init__(self) -> None:
        self.path = os.environ.get(ENV) or None
        self.mm: mmap.mmap | None = None
        if self.path:
            try:
                with open(self.path, "r+b") as f:
                    if os.fstat(f.fileno()).st_size < SIZE:
                        f.truncate(SIZE)
                    self.mm = mmap.mmap(f.fileno(), SIZE)
            except OSError:
                self.mm = None  # progress is a courtesy to the grader: never a reason for a check to fail

    def set(self, text: str) -> None:
        if self.mm is not None:
            self.mm[:SIZE] = text.encode("utf-8")[:SIZE].ljust(SIZE, b"\0")

    def clear(self) -> None:
        if self.mm is not None:
            self.mm[0] = 0


_current: _Progress | None = None


def _progress() -> _Progress:
    """This process's progress file, mapped on first use (:data:`ENV` is read once: a check's process is started
    with it)."""
    global _current
    if _current is None:
        _current = _Progress()
    return _current


def enter(text: str) -> None:
    """``text`` (the call about to be made) into the progress file, if one was asked for."""
    p = _current or _progress()
    if p.mm is not None:
        p.set(text)


def leave() -> None:
    """The call returned: the progress file says nothing is running."""
    p = _current or _progress()
    if p.mm is not None:
        p.mm[0] = 0


@contextlib.contextmanager
def running(text: str) -> Iterator[None]:
    """``text`` is in the progress file while the block runs."""
    enter(text)
    try:
        yield
    finally:
        leave()


def octave_setup() -> str | None:
    """The progress file a grader asked for (:data:`ENV`), mapped here, or None: the file a sandboxed child
    (Octave, the Python worker) writes too, bound read-write into its sandbox (:func:`crossdyn.sandbox.launch`'s
    ``writable``), since everything outside the child's own folder is read-only there."""
    return _progress().path if _progress().mm is not None else None


def for_child(workdir: str | Path) -> tuple[str, list[str]]:
    """(the progress file a sandboxed child started in ``workdir`` writes, the files to bind read-write for it):
    the grader's (:func:`octave_setup`), else one of the child's own in ``workdir`` (created now, before the
    launch gives ``workdir`` to the sandbox's user), which the caller reads when a call times out, before the
    folder is removed."""
    shared = octave_setup()
    if shared:  # absolute: the child's working folder is its own
        shared = str(Path(shared).resolve())
        return shared, [shared]
    return str(create(Path(workdir) / "progress")), []


def create(path: str | Path) -> Path:
    """An empty progress file at ``path`` (what the grader passes in :data:`ENV`)."""
    path = Path(path)
    path.write_bytes(b"\0" * SIZE)
    return path


def read(path: str | Path) -> str:
    """The call written in the progress file ("" when none was running or the file is missing)."""
    try:
        data = Path(path).read_bytes()[:SIZE]
    except OSError:
        return ""
    return data.split(b"\0", 1)[0].decode("utf-8", "replace").strip()
