"""``crossdyn export``: write the generated URDF, MJCF and/or TOML of an arm."""
from __future__ import annotations

from crossdyn.io import UsageError, check_out_file

EXIT_OK = 0


def add_parser(sub) -> None:
    """Register ``export`` (imports nothing heavy)."""
    p = sub.add_parser("export", help="write the URDF, MJCF and/or TOML of an arm")
    p.add_argument("arm", metavar="ARM", help="preset name or TOML spec path")
    p.add_argument("--urdf", metavar="FILE")
    p.add_argument("--mjcf", metavar="FILE")
    p.add_argument("--toml", metavar="FILE")
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
    for option in ("urdf", "mjcf", "toml"):
        if getattr(args, option):
            check_out_file(getattr(args, option), f"--{option}")
    for path, text in ((args.urdf, lambda: to_urdf(spec)), (args.mjcf, lambda: to_mjcf(spec, timestep=args.dt)),
                       (args.toml, lambda: dumps_spec(spec))):
        if path:
            write_text_atomic(path, text())
            print(f"wrote {path}")
    return EXIT_OK
