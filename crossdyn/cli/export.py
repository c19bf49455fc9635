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
    p.add_argument("--calibrated", metavar="SUMMARY",
                   help="with --native: the MJCF with MuJoCo's contact solref/solimp as fitted by compare "
                        "--calibrate-contact and its limits' solreflimit/solimplimit as fitted by compare "
                        "--calibrate-limits (SUMMARY: its output folder or summary.json; the same arm and --dt), "
                        "exactly what the printed engine string runs")
    p.set_defaults(func=cmd_export)


def _calibrated(args, spec, native: bool) -> str | None:
    """``--calibrated SUMMARY``: the MuJoCo engine string that runs its contact and/or limit calibration natively
    (None without the option); exit 2 naming the option and value where it does not apply."""
    path = getattr(args, "calibrated", None)
    if path is None:
        return None
    if not (native and (spec.has_contact or spec.has_limit_law) and args.mjcf):
        raise UsageError(f"export: --calibrated {path}: writes the MJCF of the native contact and limits: needs "
                         "--native, --mjcf FILE and an arm with [contact] or a limit law (limit_stiffness)")
    from crossdyn.native.contact.calibration import calibrated_engines

    from crossdyn.errors import InputError

    try:
        engines = calibrated_engines(path, spec, args.dt, limits=True)
    except InputError as e:
        raise UsageError(f"export: {e}") from None
    for key, what in (("pybullet", "contact"), ("pybullet limits", "limit")):
        if key in engines:
            print(f"export: note: PyBullet's calibrated {what} is an engine string, not a file: {engines[key]}",
                  file=sys.stderr)
    contact, limits = engines.get("mujoco"), engines.get("mujoco limits")
    if contact is None and limits is None:
        raise UsageError(f"export: --calibrated {path}: holds no MuJoCo contact or limit calibration (compare "
                         "--calibrate-contact or --calibrate-limits with a mujoco engine)")
    name = contact or limits or ""
    if contact and limits:  # the contact's engine (its integrator) with the limit calibration's values
        name += "".join("@" + part for part in limits.split("@")[1:] if part.startswith(("limit_solref=",
                                                                                           "limit_solimp=")))
        if contact.split("@")[0] != limits.split("@")[0]:
            print(f"export: note: the MJCF has the contact calibration's integrator ({contact.split('@')[0]}); the "
                  f"limit values were fitted with {limits.split('@')[0]}", file=sys.stderr)
    for option, wanted in (("native_contact", spec.has_contact), ("native_limits", spec.has_limit_law)):
        if wanted and f"@{option}=true" not in name:
            name += f"@{option}=true"
    return name


def _outputs(args) -> list[str]:
    """The --urdf/--mjcf/--toml options going to standard output, checked (at most one; files writable)."""
    import math

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
    return to_stdout


def _export_spatial(args, spec) -> int:
    """``export`` of a spatial arm (:class:`~crossdyn.models.spatial_spec.SpatialArmSpec`): its URDF, MJCF (the
    writers of :mod:`crossdyn.robots`) and TOML; --native and --calibrated are for planar arms."""
    from crossdyn.io import write_text_atomic
    from crossdyn.models.spatial_spec_io import dumps_spatial_spec
    from crossdyn.robots.write_urdf import urdf_losses

    for option in ("native", "calibrated"):
        if getattr(args, option, None):
            raise UsageError(f"export: --{option}: arm {spec.name!r} is a spatial arm, which has no native limits or "
                             "contact to export")
    to_stdout = _outputs(args)
    if args.urdf:
        for loss in urdf_losses(spec.to_robot_model()):
            print(f"export: note: the URDF cannot hold the arm's {loss}", file=sys.stderr)
    for path, text in ((args.urdf, spec.to_urdf), (args.mjcf, lambda: spec.to_mjcf(args.dt)),
                       (args.toml, lambda: dumps_spatial_spec(spec))):
        if path == "-":
            sys.stdout.write(text())
        elif path:
            write_text_atomic(path, text())
            print(f"wrote {path}", file=sys.stderr if to_stdout else sys.stdout)
    return EXIT_OK


def cmd_export(args) -> int:

    from crossdyn.io import write_text_atomic
    from crossdyn.models import ArmSpec, dumps_spec, load_arm, to_mjcf, to_urdf

    arm = load_arm(args.arm, spatial=True)
    if not isinstance(arm, ArmSpec):
        return _export_spatial(args, arm)
    spec = arm
    to_stdout = _outputs(args)
    native = bool(getattr(args, "native", False))
    if native and not (spec.has_limit_law or spec.has_contact):
        raise UsageError(f"export: --native: arm {spec.name!r} has no limit law (limit_stiffness) and no [contact]: "
                         "its files have nothing native to add")

    calibrated = _calibrated(args, spec, native)

    def mjcf() -> str:
        if not native:
            return to_mjcf(spec, timestep=args.dt)
        from crossdyn.engines.mujoco.planar import MuJoCoEngine

        if calibrated:  # the calibrations' engine string (its integrator, solref, solimp), natively
            from crossdyn.engines import make_engine

            with make_engine(calibrated, spec, args.dt) as eng:
                return eng.mjcf

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
