"""``crossdyn export``: write the generated URDF, MJCF and/or TOML of an arm."""
from __future__ import annotations

import sys

from crossdyn.io import UsageError, check_out_file

EXIT_OK = 0


def add_parser(sub) -> None:
    """Register ``export`` (imports nothing heavy)."""
    p = sub.add_parser("export", help="write the URDF, MJCF and/or TOML of an arm")
    p.add_argument("arm", metavar="ARM", help="preset name or TOML spec path")
    p.add_argument("--urdf", metavar="FILE", help="the URDF (- for standard output)")
    p.add_argument("--mjcf", metavar="FILE", help="the MJCF (- for standard output)")
    p.add_argument("--toml", metavar="FILE", help="the arm spec as TOML (- for standard output)")
    p.add_argument("--dt", type=float, default=0.001, help="MJCF timestep (s), default 0.001")
    p.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    import math

    from crossdyn.io import write_text_atomic
    from crossdyn.models import dumps_spec, load_arm, to_mjcf, to_urdf

    spec = load_arm(args.arm)
    if not (args.urdf or args.mjcf or args.toml):
        raise UsageError("export: give at least one of --urdf FILE, --mjcf FILE, --toml FILE")
    if not (math.isfinite(args.dt) and args.dt > 0):
        raise UsageError(f"export: --dt: must be a positive number of seconds, got {args.dt!r}")
    to_stdout = [f"--{o}" for o in ("urdf", "mjcf", "toml") if getattr(args, o) == "-"]
    if len(to_stdout) > 1:
        raise UsageError(f"export: only one file can go to standard output, got - for {' and '.join(to_stdout)}")
    for option in ("urdf", "mjcf", "toml"):
        if getattr(args, option) not in (None, "-"):
            check_out_file(getattr(args, option), f"--{option}")
    for path, text in ((args.urdf, lambda: to_urdf(spec)), (args.mjcf, lambda: to_mjcf(spec, timestep=args.dt)),
                       (args.toml, lambda: dumps_spec(spec))):
        if path == "-":
            sys.stdout.write(text())
        elif path:
            write_text_atomic(path, text())
            # "wrote" lines go to stderr when a file is on stdout, so the piped output stays a valid file
            print(f"wrote {path}", file=sys.stderr if to_stdout else sys.stdout)
    return EXIT_OK
