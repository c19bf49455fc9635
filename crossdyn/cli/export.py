"""``crossdyn export``: write the generated URDF, MJCF and/or TOML of an arm."""
from __future__ import annotations

import sys

from crossdyn.io import UsageError, check_out_file

EXIT_OK = 0


def add_parser(sub) -> None:
    """Register ``export`` (imports nothing heavy)."""
    p = sub.add_parser("export", help="write the URDF, MJCF and/or TOML of an arm",
                       description="Write the URDF, MJCF and/or TOML of an arm.  The output is the product: each goes "
                                   "to the FILE named (- for standard output); export judges nothing (no verdict, "
                                   "exit 0 or 2).")
    p.add_argument("arm", metavar="ARM", help="preset name or TOML spec path")
    p.add_argument("--urdf", metavar="FILE", help="the URDF (- for standard output)")
    p.add_argument("--mjcf", metavar="FILE", help="the MJCF (- for standard output)")
    p.add_argument("--toml", metavar="FILE", help="the arm spec as TOML (- for standard output)")
    p.add_argument("--dt", type=float, default=0.001, help="MJCF timestep (s), default 0.001")
    p.add_argument("--native", action="store_true",
                   help="the files with the engines' own joint limits and tip contact, as compare --native runs them "
                        "(MJCF: range and solreflimit, the tip sphere, the obstacle planes, contact only between "
                        "them, solref (-k A0, -c A0); URDF: limits and the tip's collision sphere; a URDF cannot hold "
                        "the obstacles). Default: the files of applied mode, limits and contact off (crossdyn applies "
                        "the laws)")
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
    native = bool(getattr(args, "native", False))
    if native and not (spec.has_limit_law or spec.has_contact):
        raise UsageError(f"export: --native: arm {spec.name!r} has no limit law (limit_stiffness) and no [contact]: "
                         "its files have nothing native to add")

    def mjcf() -> str:
        if not native:
            return to_mjcf(spec, timestep=args.dt)
        from crossdyn.engines.mujoco_engine import MuJoCoEngine

        # the MuJoCo adapter writes it: the contact's solref needs A0 of the compiled model (compiled twice)
        with MuJoCoEngine(spec, args.dt, native_limits=spec.has_limit_law, native_contact=spec.has_contact) as eng:
            return eng.mjcf

    def urdf() -> str:
        return to_urdf(spec, native_limits=native and spec.has_limit_law, native_contact=native and spec.has_contact)

    if native and args.urdf and spec.has_contact:
        print("export: note: a URDF describes one robot: the obstacles are not in it (PyBullet's adapter creates "
              "them; the MJCF has them)", file=sys.stderr)
    for path, text in ((args.urdf, urdf), (args.mjcf, mjcf), (args.toml, lambda: dumps_spec(spec))):
        if path == "-":
            sys.stdout.write(text())
        elif path:
            write_text_atomic(path, text())
            # "wrote" lines go to stderr when a file is on stdout, so the piped output stays a valid file
            print(f"wrote {path}", file=sys.stderr if to_stdout else sys.stdout)
    return EXIT_OK
