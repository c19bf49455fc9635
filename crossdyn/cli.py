"""The ``crossdyn`` command line.

Imports stay lazy: ``crossdyn --help`` and ``crossdyn arms`` load neither the
engines nor the analytic model.
"""
from __future__ import annotations

import argparse
import sys

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad command-line usage or bad input: exit code 2 with a one-line message."""


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
    from crossdyn.io import write_text_atomic
    from crossdyn.models import dumps_spec, load_arm, to_mjcf, to_urdf

    spec = load_arm(args.arm)
    if not (args.urdf or args.mjcf or args.toml):
        raise UsageError("export: give at least one of --urdf FILE, --mjcf FILE, --toml FILE")
    for path, text in ((args.urdf, lambda: to_urdf(spec)), (args.mjcf, lambda: to_mjcf(spec, timestep=args.dt)),
                       (args.toml, lambda: dumps_spec(spec))):
        if path:
            write_text_atomic(path, text())
            print(f"wrote {path}")
    return EXIT_OK


def _cmd_info(args) -> int:
    from crossdyn.models import load_arm
    from crossdyn.summary import describe

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
        parser.print_help()
        return EXIT_USAGE
    from crossdyn.models.spec import SpecError

    try:
        return args.func(args)
    except (UsageError, SpecError, FileNotFoundError, PermissionError, IsADirectoryError) as e:
        if args.debug:
            raise
        print(f"crossdyn: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("crossdyn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: no traceback, the shell's SIGPIPE code
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
