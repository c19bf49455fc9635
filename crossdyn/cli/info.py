"""``crossdyn info`` (a plain-text summary of an arm: its parameters, the analytic model at a few states, the
generated files) and ``crossdyn arms`` (the presets)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from crossdyn.models.spec import ArmSpec

EXIT_OK = 0


def add_parser(sub) -> None:
    """Register ``arms`` and ``info`` (imports nothing heavy)."""
    p = sub.add_parser("arms", help="list the preset arms")
    p.set_defaults(func=cmd_arms)

    p = sub.add_parser("info", help="print the analytic and generated-model summary of arms; --engines: every "
                                    "engine, installed or not, its version and its pip extra; --schema: a judging "
                                    "command's JSON Schema",
                       description="Print, on standard output (the output is the product: no --out, no verdict), "
                                   "the analytic and generated-model summary of each ARM (without ARM: the presets and the "
                                   "engines); with --engines every engine, installed or not; with --schema COMMAND the JSON Schema of that judging "
                                   "command's --json document.")
    p.add_argument("arms", metavar="ARM", nargs="*", help="preset names or TOML spec paths")
    p.add_argument("--engines", action="store_true",
                   help="list every engine: installed (with its library's version) or the pip command to install it")
    from crossdyn.cli.common import SCHEMAS

    p.add_argument("--schema", metavar="COMMAND", choices=tuple(SCHEMAS),
                   help="print the JSON Schema of COMMAND's --json document (" + ", ".join(SCHEMAS) + ")")
    p.set_defaults(func=cmd_info)


def cmd_arms(args) -> int:
    from crossdyn.models.presets import PRESETS

    for name, make in PRESETS.items():
        spec = make()
        print(f"{name:20s} {spec.n}R  {spec.notes}")
    from crossdyn.conventions import MAX_LINKS

    print(f"{'planar<N>r':20s} NR  NR, uniform rods, lengths 1.0 -> 0.6 m, masses 1.0 -> 0.5 kg "
          f"(e.g. planar5r; 1 <= N <= {MAX_LINKS})")
    from crossdyn.models.spatial_presets import SUMMARY

    for name, (kinds, convention, notes) in SUMMARY.items():
        print(f"{name:20s} {kinds}  spatial, {convention}: {notes}")
    return EXIT_OK


def engine_lines() -> list[str]:
    """One line per registered engine (the engine table, :mod:`crossdyn.engines.registry`): name, extra, the scheme
    it steps with (the same on every arm kind), the arm kinds it runs on (``planar``; ``files``: a URDF, an MJCF or
    a textbook DH arm's; ``batch``: N planar arms with ``compare --batch``), and "installed (LIBRARY VERSION)" or
    the pip command."""
    from crossdyn.engines.registry import engine_names, entry
    from crossdyn.extras import version
    from crossdyn.version import __version__

    lines = [f"{'engine':24s} {'extra':12s} {'integrator':19s} {'arms':20s} status"]
    for name in engine_names():
        e = entry(name)
        if e.library is None:
            status = f"installed (crossdyn {__version__}, base install)"
        elif e.available():
            status = f"installed ({e.library} {(version(e.extra) if e.extra else None) or '?'})"
        else:
            status = e.install_hint()
        arms = ", ".join(k for k in ("planar", "files", "batch") if k not in e.refusals
                         and (k == "planar" or (e.file if k == "files" else e.batch)))
        lines.append(f"{name:24s} {'[' + e.extra + ']' if e.extra else '-':12s} {e.integrator:19s} {arms:20s} "
                     f"{status}")
    return lines


def cmd_info(args) -> int:
    from crossdyn.errors import UsageError
    from crossdyn.models import load_arm
    from crossdyn.models.spatial_spec import SpatialArmSpec

    if args.schema:
        from crossdyn.cli.common import schema_text

        if args.arms or args.engines:
            raise UsageError("info: --schema prints one schema; give it without ARM or --engines")
        print(schema_text(args.schema), end="")
        return EXIT_OK
    if not args.arms and not args.engines:  # the front door: what there is to run
        print("Arms (crossdyn info ARM describes one; a TOML spec or a robot file .urdf/.xml works too):")
        cmd_arms(args)
        print("\nEngines (crossdyn info --engines prints this table alone):")
        print("\n".join(engine_lines()))
        return EXIT_OK
    if args.engines:
        print("\n".join(engine_lines()))
        if args.arms:
            print()
    for arm in args.arms:
        spec = load_arm(arm, spatial=True)
        if isinstance(spec, SpatialArmSpec):
            from crossdyn.cli.info_spatial import describe_spatial

            print(describe_spatial(spec))
        else:
            print(describe(spec))
        print()
    return EXIT_OK




def _fmt_matrix(M: np.ndarray, indent: str = "    ") -> str:
    import numpy as np

    return "\n".join(indent + "[" + "  ".join(f"{v:+.6f}" for v in row) + "]" for row in np.atleast_2d(M))


def _angle(x: float) -> str:
    """An angle in rad, as a multiple of pi/4 when it is one (``-pi/2``), else 4 decimals."""
    from crossdyn.cli.info_spatial import angle_text

    return angle_text(x)


def gravity_poses(spec: ArmSpec):
    """(hanging, horizontal) configurations for the spec's gravity vector, or None without gravity.

    Hanging: link 1 along g, the other joints at 0 (every centre of mass as far along g as it gets: the minimum of
    U = -sum m g.p_c, where G = dU/dq = 0).  Horizontal: link 1 turned +pi/2 from hanging, the others at 0
    (every link perpendicular to g: |G1| largest).  Angles wrapped into (-pi, pi].
    """
    import math

    from crossdyn.inputs.profiles import hanging_configuration

    gx, gy = spec.gravity[0], spec.gravity[1]
    if not (gx or gy):
        return None
    hanging = hanging_configuration(spec)
    horizontal = hanging.copy()
    horizontal[0] = hanging[0] + math.pi / 2
    for q in (hanging, horizontal):
        q[0] = -((-q[0] + math.pi) % (2 * math.pi) - math.pi)  # (-pi, pi]
    return hanging, horizontal


def describe(spec: ArmSpec) -> str:
    """Parameters, M at q = 0, G hanging and horizontal (from the gravity vector), energy and torque scales,
    generated URDF/MJCF sizes."""
    import numpy as np

    from crossdyn import analytic
    from crossdyn.inputs.profiles import joint_gravity_scale
    from crossdyn.models import engine_inertias, to_mjcf, to_urdf
    from crossdyn.models.compile import compile_arm

    n = spec.n
    lines = [f"{spec.name}: {n}R, gravity {list(spec.gravity)} m/s^2" + (f" — {spec.notes}" if spec.notes else "")]
    lines.append("  link  L [m]    m [kg]   Lc [m]   J [kg m^2]  b [N m s]  fc [N m]")
    for i, link in enumerate(spec.links, start=1):
        lines.append(f"  {i:<4d}  {link.length:<7.4g}  {link.mass:<7.4g}  {link.com:<7.4g}  {link.inertia:<10.5g}  "
                     f"{link.damping:<9.4g}  {link.friction:<.4g}")
    extras = [(i, link) for i, link in enumerate(spec.links, start=1)
              if link.armature or link.effort is not None or link.limits is not None]
    for i, link in extras:
        parts = ([f"armature {link.armature:g} kg m^2"] if link.armature else []) + (
            [f"effort ±{link.effort:g} N m"] if link.effort is not None else []) + (
            [f"limits [{link.limits[0]:g}, {link.limits[1]:g}] rad"
             + (f" (law k = {link.limit_stiffness:g} N m/rad, c = {link.limit_damping:g} N m s/rad)" if link.limit_stiffness
                else " (informational: no limit_stiffness)")] if link.limits is not None else [])
        lines.append(f"  joint {i}: " + ", ".join(parts))
    if spec.contact is not None:
        c = spec.contact
        lines.append(f"  contact: tip sphere r = {c.radius:g} m, k = {c.stiffness:g} N/m, c = {c.damping:g} N s/m, "
                     f"mu = {c.friction:g}")
        for j, o in enumerate(spec.obstacles, start=1):
            lines.append(f"  obstacle {j}: half-plane through ({o.point[0]:g}, {o.point[1]:g}) m, outward normal "
                         f"({o.normal[0]:g}, {o.normal[1]:g})")
    q0 = np.zeros(n)
    lines.append("  M(q = 0) [kg m^2]:")
    lines.append(_fmt_matrix(analytic.mass_matrix(spec, q0)))

    def qtext(q):
        return "q = [" + ", ".join(_angle(float(v)) for v in q) + "]"

    poses = gravity_poses(spec)
    if poses is None:
        lines.append("  no gravity: G = 0 everywhere, no hanging or horizontal pose")
    else:
        hanging, horizontal = poses
        lines.append(f"  G(horizontal, {qtext(horizontal)}) = ["
                     + ", ".join(f"{v:+.6f}" for v in analytic.gravity(spec, horizontal)) + "] N m")
        lines.append(f"  G(hanging, {qtext(hanging)}) = ["
                     + ", ".join(f"{v:+.3e}" for v in analytic.gravity(spec, hanging)) + "] N m")
    import math

    weak = math.hypot(spec.gravity[0], spec.gravity[1]) < 9.81
    lines.append("  gravity torque scale per joint (" + ("largest |G_i| at |g| = 9.81 m/s^2, the floor of the torque "
                                                         "scale" if weak else "largest |G_i|") + ") = ["
                 + ", ".join(f"{v:.4g}" for v in joint_gravity_scale(spec)) + "] N m")
    lines.append(f"  energy scale sum(m |g| r_c) = {spec.energy_scale():.6g} J")
    model = compile_arm(spec)
    lines.append(f"  compiles to: RobotModel, {model.n} revolute joint{'s' if model.n > 1 else ''} about +z "
                 f"({', '.join(model.joint_names)}), {'a chain' if model.is_chain else 'a tree'} on '{model.base}' "
                 "(crossdyn.models.compile: the generated URDF's model)")
    _, subs = engine_inertias(spec)
    lines.append(f"  generated: URDF {len(to_urdf(spec))} chars, MJCF {len(to_mjcf(spec))} chars; "
                 + ("inertia substitutions: " + "; ".join(
                     f"link {s.link} J {s.spec_inertia:g} -> {s.engine_inertia:.3g} kg m^2" for s in subs)
                    if subs else "no inertia substitutions"))
    return "\n".join(lines)
