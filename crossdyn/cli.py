"""The ``crossdyn`` command line.

Imports stay lazy: ``crossdyn --help`` and ``crossdyn arms`` load neither the
engines nor the analytic model.
"""
from __future__ import annotations

import argparse
import sys
import warnings as _warnings

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad command-line usage or bad input: exit code 2 with a one-line message."""


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


def _warning_printer(previous):
    """A ``warnings.showwarning``: warnings about the user's input (SpecWarning) as one line each,
    others as before (``previous``)."""
    from crossdyn.models.spec import SpecWarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, SpecWarning):
            print(f"crossdyn: warning: {message}", file=sys.stderr, flush=True)
        else:
            previous(message, category, filename, lineno, file, line)

    return show


def _cmd_arms(args) -> int:
    from crossdyn.models.presets import PRESETS

    for name, make in PRESETS.items():
        spec = make()
        print(f"{name:20s} {spec.n}R  {spec.notes}")
    from crossdyn.conventions import MAX_LINKS

    print(f"{'planar<N>r':20s} NR  NR, uniform rods, lengths 1.0 -> 0.6 m, masses 1.0 -> 0.5 kg "
          f"(e.g. planar5r; 1 <= N <= {MAX_LINKS})")
    return EXIT_OK


def _cmd_export(args) -> int:
    import math

    from crossdyn.io import write_text_atomic
    from crossdyn.models import dumps_spec, load_arm, to_mjcf, to_urdf

    spec = load_arm(args.arm)
    if not (args.urdf or args.mjcf or args.toml):
        raise UsageError("export: give at least one of --urdf FILE, --mjcf FILE, --toml FILE")
    if not (math.isfinite(args.dt) and args.dt > 0):
        raise UsageError(f"export: --dt: must be a positive number of seconds, got {args.dt!r}")
    for option in ("urdf", "mjcf", "toml"):
        if getattr(args, option):
            check_out_file(getattr(args, option), f"--{option}")
    for path, text in ((args.urdf, lambda: to_urdf(spec)), (args.mjcf, lambda: to_mjcf(spec, timestep=args.dt)),
                       (args.toml, lambda: dumps_spec(spec))):
        if path:
            write_text_atomic(path, text())
            print(f"wrote {path}")
    return EXIT_OK


def _cmd_info(args) -> int:
    from crossdyn.models import load_arm
    from crossdyn.info import describe

    for arm in args.arms:
        print(describe(load_arm(arm)))
        print()
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crossdyn",
        description="Cross-validate planar robot-arm dynamics: the analytic Lagrangian model against "
                    "PyBullet, MuJoCo and Pinocchio.  Units SI, angles in radians; see README for conventions.",
    )
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("arms", help="list the preset arms")
    p.set_defaults(func=_cmd_arms)

    p = sub.add_parser("export", help="write the URDF, MJCF and/or TOML of an arm")
    p.add_argument("arm", metavar="ARM", help="preset name or TOML spec path")
    p.add_argument("--urdf", metavar="FILE")
    p.add_argument("--mjcf", metavar="FILE")
    p.add_argument("--toml", metavar="FILE")
    p.add_argument("--dt", type=float, default=0.001, help="MJCF timestep (s), default 0.001")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("info", help="print the analytic and generated-model summary of arms")
    p.add_argument("arms", metavar="ARM", nargs="+", help="preset names or TOML spec paths")
    p.set_defaults(func=_cmd_info)

    # --- subcommands added by other modules register here (one line each) ---
    from crossdyn.comparisons import checker_cli

    checker_cli.add_parser(sub)
    from crossdyn.comparisons import compare_cli

    compare_cli.add_parsers(sub)

    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        print("crossdyn: error: no COMMAND given (see the list above)", file=sys.stderr)
        return EXIT_USAGE
    from crossdyn.models.spec import SpecError, SpecWarning

    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("default", SpecWarning)  # each distinct warning once
            _warnings.showwarning = _warning_printer(_warnings.showwarning)
            return args.func(args)
    except (UsageError, SpecError) as e:
        if args.debug:
            raise
        print(f"crossdyn: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("crossdyn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: no traceback, the shell's SIGPIPE code
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except MemoryError:
        if args.debug:
            raise
        print("crossdyn: error: out of memory; use fewer --states or a shorter --duration", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:  # a file that cannot be read or written (disk full, not a directory, ...)
        if args.debug:
            raise
        where = f"{e.filename}: " if e.filename else ""
        print(f"crossdyn: error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # `python -m crossdyn.cli`: run the module's importable copy, whose UsageError
    from crossdyn.cli import main as _main  # the subcommands raise (not this __main__ copy's)

    sys.exit(_main())
