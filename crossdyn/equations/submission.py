"""What of a user's folder a sandboxed child sees beside the user's file (Python worker and Octave alike).

* A single ``crossdyn check ARM FILE`` (and ``compare --engines user:FILE``): the file's own folder, copied into the
  child's folder read-only, so that ``import kinematics``, ``from my_params import *`` or a MATLAB call to a
  function in another ``.m`` file of that folder work as they do unsandboxed — the user's own code, nothing else of
  the machine.  Hidden entries and ``__pycache__`` are left out; a folder larger than :data:`MAX_FILES` files or
  :data:`MAX_BYTES` bytes contributes its top-level source files only (``.py`` for Python, ``.m`` for MATLAB).
* Class grading (:func:`crossdyn.checking.grading.check_one` sets :data:`SUBMISSION_FOLDER`): a sub-folder
  submission is copied whole; a lone file is copied alone (:data:`ALONE`) — never another student's file.

The copy is made read-only (files 0444, folders 0555; owned by crossdyn's user, so a sandboxed child running as
another uid cannot change it); :func:`remove_tree` removes it.
"""
from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

SUBMISSION_FOLDER = "CROSSDYN_SUBMISSION_FOLDER"
"""Set by a grader for each submission's check: the submission's folder (a sub-folder submission: copied whole),
or :data:`ALONE` (a lone file of the class folder: copied alone).  Unset — a single check — the file's own folder
is copied."""
ALONE = "-"
MAX_FILES = 2000
MAX_BYTES = 64 * 1024 ** 2
SOURCE_SUFFIXES = {"python": (".py",), "matlab": (".m",)}


@dataclass(frozen=True)
class Scope:
    """The folder copied with the file (None: the file alone) and the words that say so."""

    folder: Path | None
    words: str
    top_level_only: bool = False


def _visible(folder: Path) -> list[Path]:
    """The files under ``folder`` a copy takes (hidden entries and ``__pycache__`` left out)."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        out += [Path(root) / f for f in sorted(files) if not f.startswith(".")]
        if len(out) > MAX_FILES:
            break
    return out


def scope_of(path: str | Path) -> Scope:
    """What is copied with ``path`` (see the module docstring)."""
    path = Path(path)
    given = os.environ.get(SUBMISSION_FOLDER)
    if given == ALONE or path.is_dir():
        return Scope(None, "your file alone" if given == ALONE else "your folder")
    if given:
        folder = Path(given).resolve()
        if path.resolve().parent == folder and folder.is_dir():
            return Scope(folder, "your submission's folder, read-only")
        return Scope(None, "your file alone")
    folder = path.resolve().parent
    files = _visible(folder)
    size = 0
    for f in files:
        try:
            size += f.stat().st_size
        except OSError:
            pass
    if len(files) > MAX_FILES or size > MAX_BYTES:
        return Scope(folder, f"your file's folder's top-level source files, read-only (the folder holds over "
                             f"{min(len(files), MAX_FILES)} files or {MAX_BYTES // 1024 ** 2} MiB)", True)
    return Scope(folder, "your file's folder, read-only")


def copy_into(path: str | Path, dest: str | Path, language: str) -> Path:
    """Copy ``path`` (and what :func:`scope_of` says comes with it) into the folder ``dest``, read-only; returns
    the copy of ``path``."""
    path, dest = Path(path), Path(dest)
    scope = scope_of(path)
    if path.is_dir():
        shutil.copytree(path, dest / path.name, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    elif scope.folder is None:
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / path.name)
    elif scope.top_level_only:
        dest.mkdir(parents=True, exist_ok=True)
        for f in sorted(scope.folder.iterdir()):
            if f.is_file() and (f.suffix in SOURCE_SUFFIXES[language] or f.name == path.name):
                shutil.copyfile(f, dest / f.name)
    else:
        shutil.copytree(scope.folder, dest, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".*", "__pycache__"))
    _read_only(dest)
    return dest / path.name


def _read_only(top: Path) -> None:
    for root, dirs, files in os.walk(top, topdown=False):
        for f in files:
            p = Path(root) / f
            if not p.is_symlink():
                p.chmod(0o444)
        for d in dirs:
            p = Path(root) / d
            if not p.is_symlink():
                p.chmod(0o555)
    top.chmod(0o555)


def remove_tree(top: str | Path) -> None:
    """Remove ``top`` with any read-only copy in it (folders made writable first); errors ignored."""
    top = Path(top)
    for root, dirs, _ in os.walk(top):
        for d in dirs:
            p = Path(root) / d
            try:
                if not p.is_symlink():
                    p.chmod(p.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
            except OSError:
                pass
    shutil.rmtree(top, ignore_errors=True)
