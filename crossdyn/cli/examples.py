"""``crossdyn examples DIR``: copy the example files (equations to check, a class folder, a sweep, a trajectory)
into DIR, so that the README's commands run after ``pip install crossdyn`` as in a checkout.

The wheel carries them as ``crossdyn/examples/`` (package data); a checkout has them at the top, ``examples/``.
An existing file is never overwritten (exit 2 naming it)."""
from __future__ import annotations

import shutil
from pathlib import Path

from crossdyn.status import Exit


def add_parser(sub) -> None:
    """Register ``examples`` (imports nothing heavy)."""
    p = sub.add_parser("examples", help="copy the example files (the README's examples/) into DIR",
                       description="Copy the example files into DIR (the output is the product; no verdict, "
                                   "exit 0 or 2).")
    p.add_argument("dir", metavar="DIR", help="where to copy them (created; existing files are not overwritten)")
    p.set_defaults(func=cmd_examples)


def examples_dir() -> Path | None:
    """The installed examples (``crossdyn/examples`` in a wheel), else a checkout's ``examples/``, else None."""
    here = Path(__file__).resolve().parent.parent  # the crossdyn package (this file is crossdyn/cli/examples.py)
    for folder in (here / "examples", here.parent / "examples"):
        if (folder / "check").is_dir():
            return folder
    return None


def cmd_examples(args) -> int:
    from crossdyn.errors import UsageError

    src = examples_dir()
    if src is None:
        raise UsageError("examples: this crossdyn install has no example files (crossdyn/examples is missing): "
                         "reinstall from a wheel or sdist of crossdyn, or take examples/ from its source repository")
    files = sorted(p for p in src.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    dest = Path(args.dir)
    clash = [dest / p.relative_to(src) for p in files if (dest / p.relative_to(src)).exists()]
    if clash:
        raise UsageError(f"examples: {clash[0]} already exists (nothing copied; give an empty or new DIR)")
    for p in files:
        target = dest / p.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
    print(f"copied {len(files)} example files to {dest} (e.g. crossdyn check planar2r {dest / 'check' / 'my_2r.py'})")
    return Exit.PASS
