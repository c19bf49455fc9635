"""The ``crossdyn`` command line.

Imports stay lazy: ``crossdyn --help`` and ``crossdyn arms`` load neither the
engines nor the analytic model.

Exit codes: one table for every command (:class:`crossdyn.status.Exit`, printed by ``crossdyn --help``): 0 pass,
1 fail, 3 inconclusive; 2 for every :class:`~crossdyn.errors.InputError` (bad usage, a bad spec, data, sweep or
profile file: the one-line message), an unreadable or unwritable file, or out of memory; 130 Ctrl-C; 141 a closed
pipe.  Any other exception is crossdyn's own bug: it is not caught here, so it ends with
its traceback.
"""
from __future__ import annotations

import argparse
import sys
import warnings as _warnings

from crossdyn.status import EXIT_TABLE, Exit  # noqa: E402  (level 0: cheap)

EXIT_OK, EXIT_FAIL, EXIT_USAGE = Exit.PASS, Exit.FAIL, Exit.USAGE

from crossdyn.errors import InputError, UsageError  # noqa: E402,F401  (cheap: no heavy imports)
from crossdyn.io import check_out_dir, check_out_file  # noqa: E402,F401


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


def _grammar() -> str:
    from crossdyn.cli.common import GRAMMAR

    return GRAMMAR


_DESCRIPTION = """\
Cross-validate robot-arm dynamics, M(q) q'' + C(q, q') q' + G(q) = tau, against an exact reference:
a planar preset, a textbook DH arm or your own URDF/MJCF robot file.

  compare   run the arm in PyBullet, MuJoCo, Pinocchio, Drake, DART (and, when named, MJX, MuJoCo Warp,
            Newton, Genesis) beside the reference; PASS/FAIL/INCONCLUSIVE with the checks counted
  check     your hand-derived M, C, G (Python or MATLAB) against the exact model, the wrong term named;
            a whole class's files with --summary
  audit     one robot file in several engines, or two files, and what explains their difference
  identify  base parameters identified from an engine's or a CSV's joint data
  sweep     a grid of runs (arms x engines x settings) on Dask; derive: the equations of an arm

Units SI, angles in radians.  `crossdyn info` lists the arms and the engines; `crossdyn COMMAND --help`."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crossdyn",
        description=_DESCRIPTION,
        epilog=_grammar() + "\n\n" + EXIT_TABLE, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    from crossdyn.version import __version__

    parser.add_argument("--version", action="version", version=f"crossdyn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    # --- one module per command in crossdyn/cli/, each with add_parser(sub) ---
    from crossdyn.cli import audit, check, compare, demo, derive, examples, export, identify, info, sweep

    for command in (info, export, check, derive, compare, demo, identify, sweep, audit, examples):  # `crossdyn --help` order
        command.add_parser(sub)

    return parser


VECTOR_OPTIONS = ("--q0", "--qd0")
"""Options whose value may start with a minus sign (``--q0 -1.2,0.3``): joined to their value before argparse,
which would otherwise take ``-1.2,0.3`` for an option."""


def _join_vector_options(argv: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in VECTOR_OPTIONS and i + 1 < len(argv) and argv[i + 1][:1] == "-" \
                and argv[i + 1][1:2] in tuple("0123456789."):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_join_vector_options(list(sys.argv[1:] if argv is None else argv)))
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        print("crossdyn: error: no COMMAND given (see the list above)", file=sys.stderr)
        return EXIT_USAGE
    from crossdyn.models.spec import SpecWarning

    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("default", SpecWarning)  # each distinct warning once
            _warnings.showwarning = _warning_printer(_warnings.showwarning)
            from crossdyn.cli.common import run_command

            return run_command(args)
    except InputError as e:  # every input kind: UsageError, SpecError, DataError, the sweep's and the files' errors
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
