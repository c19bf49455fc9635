"""``crossdyn compare``: run a comparison, write its reports, exit 0 / 1 / 2.

Exit codes: 0 every metric within tolerance (and no regression); 1 a metric out of
tolerance, an engine diverged or failed, or a baseline regression; 2 bad usage or
bad input (the message names the option or file and the value); 130 interrupted by Ctrl-C
(the engines that finished are written, the rest marked skipped).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

from crossdyn.cli.common import add_judging_options, out_dir, publish
from crossdyn.cli import sandbox_options
from crossdyn.cli.compare_lines import contact_native_lines, format_contact_table, limit_calibration_lines  # noqa: F401
from crossdyn.status import Exit

EXIT_OK, EXIT_FAIL, EXIT_USAGE = Exit.PASS, Exit.FAIL, Exit.USAGE
EXIT_INTERRUPTED = Exit.INTERRUPTED
"""Ctrl-C: what finished is written, the summary's verdict is ``FAIL`` (the run is incomplete)."""

from crossdyn.comparison.options import MAX_STATES, MAX_STEPS  # noqa: E402,F401  (where they were)



def add_parser(sub) -> None:
    """Register ``compare`` (imports nothing heavy)."""
    p = sub.add_parser("compare", help="compare engines against the exact reference on one arm (a preset, a TOML spec or a robot file)",
                       description="Compare every engine against the analytic reference on ARM and write "
                                   "summary.json, time series, plots and report.md/report.html into --out.")
    add_judging_options(p, "compare")
    p.add_argument("arm", metavar="ARM", nargs="?", help="preset name or TOML spec path, or a robot file "
                   "(.urdf, .xml: every file engine against crossdyn's spatial reference; --duration "
                   "default 2 there); a spatial preset or TOML ([arm] kind = \"spatial\"): its URDF and MJCF, the same")
    _common(p)
    p.add_argument("--q0", metavar="Q1,Q2,...", help="start configuration in rad, one per joint (default: a "
                   "trajectory's first point, else near the hanging pose)")
    p.add_argument("--qd0", metavar="V1,V2,...", help="start velocity in rad/s, one per joint (default: at rest)")
    p.add_argument("--allow-invalid-start", action="store_true",
                   help="run from a start inside an obstacle or beyond a joint limit (by more than 1e-9 m / "
                        "1e-9 rad) instead of refusing it with exit 2")
    p.add_argument("--list-profiles", action="store_true",
                   help="list every profile with its parameters, units and defaults, and exit")
    p.add_argument("--baseline", metavar="FILE", help="compare with a stored baseline; regressions fail")
    p.add_argument("--update-baseline", action="store_true", help="write this run's metrics to --baseline FILE")
    p.add_argument("--identify", action="store_true",
                   help="also identify each engine's base parameters from its own data and name those that "
                        "differ from the spec's (identification.json, identification.md)")
    p.add_argument("--batch", type=int, metavar="N",
                   help="N random arms of ARM's kind at once on the batched engines (jax-rk4, jax-rk4-f32, mjx-rk4, "
                        "mujoco-rk4, numpy-rk4; --engines picks others); writes batch_summary.json, batch_report.md")
    p.add_argument("--spread", type=float, default=0.2, metavar="F",
                   help="with --batch: each L, m, Lc/L, J scaled by U[1-F, 1+F] (default 0.2)")
    p.add_argument("--precision", default="highest", metavar="P",
                   help="with --batch: JAX/MJX matmul precision, highest (default), high or default (TF32 on GPUs)")
    p.add_argument("--derivatives", action="store_true",
                   help="also judge each engine's own derivatives of the dynamics (Pinocchio's analytical ones, "
                        "MuJoCo's mjd_transitionFD/mjd_inverseFD) against crossdyn's complex-step reference at the "
                        "first 50 random states: the derivatives group, with their gradients through time; with "
                        "--batch: on the first 8 arms, 5 states each")
    p.add_argument("--effort", action="store_true", help="tau = clip(tau_cmd, -effort, effort) per joint in every "
                   "engine and the reference, the effort group judged; a robot file or spatial arm: its limits scaled "
                   "by one factor so that the default motion saturates a joint (default: unclipped); a planar arm "
                   "with effort limits: what runs anyway; an arm without effort limits: exit 2")
    sandbox_options.add_sandbox_options(p)       # user:FILE engines run sandboxed (crossdyn.sandbox)
    # None: 3 s on an arm, ROBOT_DURATION on a robot file; dt None: 1 ms (a robot file may choose a stable one)
    p.set_defaults(func=cmd_compare, duration=None, dt=None)


def _common(p) -> None:
    p.add_argument("--profile", metavar="NAME[@key=value...]|FILE",
                   help="torque profile (zero, constant, step, sine, chirp, multisine, multisine-motion, "
                        "pd-gravity, computed-torque) with parameters as NAME@key=value@key=value "
                        "(e.g. sine@amplitude=1@frequency=0.5, vectors as 1,0.5,0; "
                        "computed-torque@trajectory=move.toml), or a CSV file; "
                        "`crossdyn compare --list-profiles` lists parameters, units and defaults; "
                        "default: a multi-sine about the hanging equilibrium")
    p.add_argument("--duration", type=float, default=3.0, metavar="S", help="seconds simulated (default 3)")
    p.add_argument("--dt", type=float, default=1e-3, metavar="S",
                   help="time step in seconds (default: 0.001, or the largest 0.001/2^k, within 4x the steps, at "
                        "which every engine's trajectory can be judged, predicted from crossdyn's replica of each "
                        "engine's scheme at dt and dt/2; the note and summary.json's dt_choice say which and why; "
                        "given, the step is kept)")
    p.add_argument("--engines", metavar="A,B,...",
                   help="engines to compare (default: analytic, pybullet, mujoco, mujoco-rk4, pinocchio, dart, "
                        "drake-discrete — those installed; drake, the slow error-controlled one, when named); "
                        "user:FILE runs your own equations; options after @ (NAME@key=value), a list value's "
                        "commas kept: pybullet@limit_force=1,2")
    p.add_argument("--native-friction", action="store_true",
                   help="Coulomb friction: compare each engine's own (MuJoCo frictionloss, PyBullet's velocity motor, "
                        "DART's constraint) instead of applying the regularised law -fc*tanh(qd/v_s) to all (default)")
    p.add_argument("--characterise-friction", action="store_true",
                   help="with f_c > 0: also run MuJoCo and PyBullet with their own friction against the set-valued "
                        "stick-slip reference and judge them (stick intervals, transition times, creep while stuck; a "
                        "departure beyond its measured tolerance fails)")
    p.add_argument("--tolerances", metavar="FILE", help="TOML file overriding default tolerances")
    p.add_argument("--states", type=int, default=1000, metavar="N", help="random states for static metrics")
    p.add_argument("--seed", type=int, default=0, help="seed of the random states (default 0)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="engines measured in N parallel processes (default: the number of CPUs, at most 4); "
                        "results are identical for any N")
    p.add_argument("--native", action="store_true",
                   help="arms with a limit law: also run MuJoCo, PyBullet, drake-discrete (@native_limits=true) and "
                        "DART (@enforce_limits=true) with their own joint limits and judge each limit contact "
                        "against the event-exact law (tolerance: Richardson estimate + measured engine softness); "
                        "arms with contact: also run MuJoCo, PyBullet and drake-discrete with their own contact "
                        "(@native_contact=true), characterised per contact episode and judged; robot files and "
                        "spatial arms: also drive the joints into the file's limits with each engine's own "
                        "enforcement on (@limits=true, dart@enforce_limits=true), characterised per contact, not "
                        "judged (a file states no stop stiffness: INCONCLUSIVE, saying so)")
    p.add_argument("--no-native-contact", action="store_true",
                   help="arms with contact: skip the native-contact characterisation compare prints by default "
                        "(MuJoCo, PyBullet and drake-discrete with their own contact, per episode, not judged "
                        "without --native)")
    p.add_argument("--calibrate-limits", action="store_true",
                   help="arms with a limit law: fit MuJoCo's solreflimit/solimplimit per joint (and, when pybullet "
                        "is compared, PyBullet's jointLimitForce per joint and world-global erp) to the law and "
                        "report them with the residual (with --native the calibrated limits are run and judged too)")
    p.add_argument("--calibrate-contact", action="store_true",
                   help="arms with contact: fit MuJoCo's contact solref/solimp and PyBullet's contactStiffness/"
                        "contactDamping to the law and report them with the residual, the improvement over the "
                        "direct setting and the engine string that reruns them (rerun with: --native --engines "
                        "\"mujoco@contact_solref=...@contact_solimp=...\"; export --native --calibrated OUT writes "
                        "the MJCF)")
    p.add_argument("--require", metavar="PHENOMENA", default=None,
                   help="comma-separated phenomena asked about (limits, effort, contact, friction, armature): one "
                        "the arm declares but the run never reached is INCONCLUSIVE (exit 3) instead of NOT "
                        "EXERCISED (0 checks, the verdict left as the rest decides), one the arm does not declare "
                        "is INCONCLUSIVE too; --native, --calibrate-* and the friction options ask about theirs")
    p.add_argument("--no-plots", action="store_true", help="skip plots and the animation")
    p.add_argument("--no-animation", action="store_true", help="skip the GIF animation")


def _usage(msg: str):
    from crossdyn.io import UsageError

    return UsageError(msg)


def _options(args, spec):
    """The :class:`CompareOptions` of the command line; exit 2 naming the option and the value.  The checks are
    CompareOptions' own (:mod:`crossdyn.comparison.options`), with the options named as flags; engines with
    options after ``@`` and ``user:FILE`` engines are also built once here."""
    import os

    from crossdyn.comparison.options import (CompareOptions, check_counts, check_engines, check_require,
                                             check_run_length)
    from crossdyn.comparison.tolerances import Tolerances, load_tolerances

    check_run_length(args.duration, args.dt, label="--")
    require = check_require(getattr(args, "require", None) or (), label="--require")
    jobs = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, 4)
    check_counts(args.states, args.seed, jobs, label="--", states_name="states")
    engines = None
    if args.engines is not None:
        from crossdyn.engines.registry import split_engine_list

        engines = check_engines(split_engine_list(args.engines), label="--engines",
                                shown=args.engines)
        for e in engines:
            if e.startswith("user:") or "@" in e:
                _check_user_engine(e, spec, args.dt)  # the file, or the options, checked by building it once
        from crossdyn.comparison.compare import split_native_runs

        split_native_runs(engines, args.native, label="--engines", switch="--native")  # exit 2 before any work
    tol = load_tolerances(args.tolerances) if args.tolerances else Tolerances()
    progress = None if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    q0 = _state_option(args, "q0", spec.n, "rad")
    qd0 = _state_option(args, "qd0", spec.n, "rad/s")
    choose = not getattr(args, "dt_given", True) and not getattr(args, "baseline", None)  # --dt, --baseline: kept
    return CompareOptions(duration=args.duration, dt=args.dt, choose_dt=choose, engines=engines, profile=args.profile,
                          tolerances=tol, n_states=args.states, seed=args.seed, jobs=jobs, progress=progress,
                          q0=q0, qd0=qd0, allow_invalid_start=getattr(args, "allow_invalid_start", False),
                          native_friction=getattr(args, "native_friction", False),
                          characterise_friction=getattr(args, "characterise_friction", False),
                          native=getattr(args, "native", False),
                          calibrate_limits=getattr(args, "calibrate_limits", False),
                          calibrate_contact=getattr(args, "calibrate_contact", False), require=require,
                          derivatives=getattr(args, "derivatives", False),
                          contact_characterise=spec.has_contact and not getattr(args, "no_native_contact", False))


def _state_option(args, name: str, n: int, unit: str):
    """--q0 / --qd0 as a tuple of n finite floats (None if not given); exit 2 naming the option and value."""
    raw = getattr(args, name, None)
    if raw is None:
        return None
    parts = [x.strip() for x in raw.split(",")]
    try:
        vals = tuple(float(x) for x in parts)
    except ValueError:
        raise _usage(f"--{name} {raw}: must be {n} comma-separated numbers in {unit} (one per joint)") from None
    if len(vals) != n:
        raise _usage(f"--{name} {raw}: the arm has {n} joints, got {len(vals)} value(s); give {n} comma-separated "
                     f"numbers in {unit}")
    if not all(math.isfinite(v) for v in vals):
        raise _usage(f"--{name} {raw}: must be finite numbers in {unit}")
    return vals


def _check_user_engine(name: str, spec, dt: float) -> None:
    """Build a user:FILE engine (or one with @options) once now, so a bad one is exit 2 before anything runs."""
    from crossdyn.engines import EngineError, make_engine

    try:
        make_engine(name, spec, dt).close()
    except (EngineError, TypeError, ValueError) as e:
        detail = "\n".join("  " + line for line in str(e).splitlines())
        what = name[len("user:"):] if name.startswith("user:") else name
        raise _usage(f"--engines {name}: cannot use {what} as an engine:\n{detail}") from None


def _check_out_dir(out: Path) -> None:
    from crossdyn.io import check_out_dir

    check_out_dir(out, "--out")


def _resolve_profile(args, spec):
    """Validate --profile early (exit 2 on a bad name, key, value or file)."""
    from crossdyn.inputs.profile_options import parse_profile
    from crossdyn.inputs.profiles import ProfileError

    if args.profile is None:
        return None
    try:
        prof = parse_profile(args.profile, spec, q0=_state_option(args, "q0", spec.n, "rad"))
        prof.validate(spec.n, args.duration)
    except ProfileError as e:
        raise _usage(str(e)) from None
    return prof


def run_one(spec, args, out: Path, baseline: str | None = None, update: bool = False,
            echo=print) -> tuple[int, dict]:
    """Run one comparison, write its outputs, report through ``echo``; return (exit code, summary)."""
    from crossdyn.comparison.baseline import check_setup, compare_to_baseline, load_baseline, update_baseline
    from crossdyn.comparison.compare import compare
    from crossdyn.reporting import write_outputs

    from dataclasses import replace

    opt = replace(_options(args, spec), profile=_resolve_profile(args, spec))
    base = None
    if baseline and not update:
        base = load_baseline(baseline)
        check_setup(base, str(baseline), spec.to_dict(), opt.dt, opt.duration)
    if baseline and update:
        from crossdyn.io import check_out_file

        check_out_file(baseline, "--baseline")  # before the run, not after it
    _check_out_dir(out)
    cmp = compare(spec, opt)
    summary = cmp.summary
    if base is not None:
        result = compare_to_baseline(summary, base)
        summary["baseline"] = {"file": str(baseline), **result}
        if result["regressions"]:
            summary["failures"] += [f"baseline: {r}" for r in result["regressions"]]
            summary["verdict"] = "FAIL"
    try:
        write_outputs(cmp, out, plots=not args.no_plots, animation=not (args.no_plots or args.no_animation))
    except KeyboardInterrupt:
        print(f"crossdyn: interrupted (Ctrl-C) while writing the outputs to {out}: every file there is complete "
              "(written atomically), but some may be missing or left from an earlier run", file=sys.stderr)
        return EXIT_INTERRUPTED, summary
    if update and baseline:
        if cmp.interrupted:
            print(f"baseline {baseline} NOT updated: the run was interrupted", file=sys.stderr)
        else:
            backup = update_baseline(baseline, summary)
            echo(f"baseline written to {baseline}" + (f" (previous kept as {backup})" if backup else ""))
    echo(format_table(summary))
    for line in contact_native_lines(summary) + limit_calibration_lines(summary):
        echo(line)
    if getattr(args, "identify", False) and not cmp.interrupted:
        _identify_section(spec, summary, args, out, echo)
    for w in summary.get("baseline", {}).get("warnings", []):
        echo(f"warning: baseline: {w}")
    from crossdyn.reporting.blocks.text import checks_line

    echo(f"verdict: {summary['verdict']} ({checks_line(summary)})  ({out / 'report.html'})")
    for f in summary["failures"]:
        echo(f"  FAIL {f}")
    for line in summary.get("inconclusive", []):
        echo(f"  INCONCLUSIVE {line}")
    for line in summary.get("not_exercised", []):
        echo(f"  NOT EXERCISED {line}")
    for note in summary.get("notes", []):
        echo(f"  note: {note}")
    if cmp.interrupted:
        done = [k for k, e in summary["engines"].items() if e["status"] != "skipped"]
        skipped = [k for k, e in summary["engines"].items() if e["status"] == "skipped"]
        print(f"crossdyn: interrupted (Ctrl-C): wrote the results of {', '.join(done) or 'no engine'} to {out}; "
              f"skipped: {', '.join(skipped)}", file=sys.stderr)
        return EXIT_INTERRUPTED, summary
    return Exit.of(summary["verdict"]), summary


def _identify_section(spec, summary: dict, args, out: Path, echo) -> None:
    """``--identify``: each engine that ran identified from its own noise-free data (informational: the
    verdict is the comparison's)."""
    from crossdyn.identification import compare_section
    from crossdyn.io import write_json_atomic, write_text_atomic

    engines = [name for name, e in summary["engines"].items() if e["status"] == "ok"]
    data, md = compare_section(spec, engines, dt=args.dt, seed=args.seed)
    write_json_atomic(out / "identification.json", data)
    write_text_atomic(out / "identification.md", md)
    echo("identification (each engine's base parameters from its own data):")
    for line in md.splitlines():
        if line.startswith("- "):
            echo("  " + line[2:])


def format_table(summary: dict) -> str:
    """A one-line-per-engine terminal table: the run status (did the engine run to the end: ok, diverged,
    failed, skipped), the result (which metrics are out of tolerance), and the headline metrics with units."""
    from crossdyn.reporting import engine_result

    closed = any(isinstance(e.get("tracking"), dict) for e in summary["engines"].values())
    head = ["engine", "run", "result", "traj max [rad]", "vs same integ. [rad]", "ID [N m]", "FD [rad/s^2]",
            "M [kg m^2]", "energy [rel]", "order", "us/step"] + (["tracking max [rad]"] if closed else [])
    derivs = isinstance(summary.get("derivatives"), dict)  # compare ARM --derivatives only
    head += ["derivatives"] if derivs else []
    rows = [head]

    def g(e, path):
        for part in path.split("."):
            e = e.get(part) if isinstance(e, dict) else None
        return e

    for name, e in summary["engines"].items():
        cells = [name, e["status"], engine_result(e)]
        for path in ("trajectory.max_abs_error_rad", "trajectory.same_integrator_error_rad",
                     "inverse_dynamics.max_abs_error_nm", "forward_dynamics.max_abs_error",
                     "mass_matrix.max_abs_error"):
            v = g(e, path)
            cells.append("-" if v is None else f"{v:.2e}")
        v = g(e, "energy.max_rel_drift")
        w = g(e, "energy.work_energy_residual_rel")
        cells.append("-" if v is None and w is None else f"{(v if v is not None else w):.1e}")
        v = g(e, "convergence.empirical_order")
        cells.append("-" if v is None else f"{v:.2f}")
        v = g(e, "speed.us_per_step")
        cells.append("-" if v is None else f"{v:.1f}")
        if closed:
            v = g(e, "tracking.max_abs_error_rad")
            cells.append("-" if v is None else f"{v:.2e}")
        if derivs:
            from crossdyn.reporting.blocks.derivatives import derivatives_cell
            cells.append(derivatives_cell(e))
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [f"{summary['arm']} ({summary['dof']}R), dt = {summary['dt']:g} s, {summary['duration']:g} s, "
             f"profile {summary['profile'].get('name')}"]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    lines.append("  run: did the engine run to the end (ok, diverged, failed, skipped, unsupported); result: pass, or the metrics "
                 "out of tolerance; energy: free-swing drift (or work-energy residual) / energy scale")
    if isinstance(summary.get("contact"), dict):
        lines.append(format_contact_table(summary["contact"]))
    return "\n".join(lines)


DEFAULT_DT = 1e-3
"""--dt when not given (s)."""


def cmd_compare(args) -> int:
    from crossdyn.models import load_arm
    from crossdyn.models.spatial_spec import SpatialArmSpec

    if args.list_profiles:
        from crossdyn.inputs.profile_options import format_profile_list

        if args.json:
            raise _usage("compare: --json prints a comparison's document; --list-profiles prints a list (drop one)")

        print(format_profile_list())
        return EXIT_OK
    if args.arm is None:
        raise _usage("compare: give an ARM (a preset name or a TOML spec path; `crossdyn arms` lists the presets)")
    args.dt_given = args.dt is not None
    if args.dt is None:
        args.dt = DEFAULT_DT
    from crossdyn.cli.robot_compare import cmd_compare_robot, is_robot_file

    if is_robot_file(args.arm):
        return cmd_compare_robot(args)  # a robot file (URDF, MJCF): crossdyn.robotcompare
    sandbox_options.apply(args)                  # exit 2 naming a bad --sandbox / --limit-* value
    spec = load_arm(args.arm, spatial=True)
    if isinstance(spec, SpatialArmSpec):
        from crossdyn.cli.robot_compare import cmd_compare_spatial

        return cmd_compare_spatial(spec, args)  # its URDF and MJCF: crossdyn.robotcompare.spatial
    if getattr(args, "effort", False) and not spec.has_effort:  # a planar arm: the law runs wherever it has limits
        raise _usage(f"--effort: {args.arm} states no effort limit (a link's effort = ..., N m); add one or drop it")
    if args.duration is None:
        args.duration = 3.0
    if args.batch is not None:
        return cmd_compare_batch(spec, args)
    check_installed(args.engines, None if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True)))
    if args.update_baseline and not args.baseline:
        raise _usage("--update-baseline needs --baseline FILE (where to write it)")
    out = out_dir(args, "compare", spec.name)
    code, _ = run_one(spec, args, out, args.baseline, args.update_baseline)
    publish(args, out / "summary.json")
    return code


def check_installed(engines: str | None, say=None) -> None:
    """Before any work: exit 2 naming the ``pip`` command when ``--engines`` names an engine whose extra is missing,
    or (no ``--engines``) when no default simulation engine is installed; ``say`` gets one line per default engine
    left out ("left out drake (not installed: pip install 'crossdyn[drake]')").  A comparison writes its time series
    with pandas, which every engine extra installs."""
    from crossdyn.comparison.options import DEFAULT_ENGINES
    from crossdyn.engines.registry import entry
    from crossdyn.extras import ENGINE_EXTRAS, COMPARE_NEEDS, require_modules

    if engines is None:
        entries = [entry(e) for e in DEFAULT_ENGINES]
        gone = [e for e in entries if not e.available()]
        if not [e for e in entries if e.library is not None and e.available()]:
            extras = sorted({e.extra for e in gone if e.extra}, key=ENGINE_EXTRAS.index)
            raise _usage("compare: none of the default engines is installed (" + ", ".join(e.name for e in gone)
                         + "); install one: " + ", ".join(f"pip install 'crossdyn[{x}]'" for x in extras)
                         + " (every engine: pip install 'crossdyn[all]')")
        for e in gone if say else ():
            say(f"compare: left out default engine {e.name} ({e.install_hint()})")
        extra = "mujoco"
    else:
        from crossdyn.engines.registry import split_engine_list

        named = [entry(n) for n in split_engine_list(engines) if _known(n)]
        for e in named:
            if not e.available():
                raise _usage(f"--engines: engine {e.name!r} is {e.install_hint()}")
        extra = next((e.extra for e in named if e.extra), "mujoco")
    require_modules(COMPARE_NEEDS, "compare (its time series)", extra)


def _known(name: str) -> bool:
    from crossdyn.engines.registry import engine_names

    return name.split("@", 1)[0] in engine_names()


MAX_BATCH = 10_000_000
MAX_BATCH_VALUES = 60_000_000
"""Most saved joint angles per engine (N × samples × n, 8 bytes each, q and q̇ kept): bounds memory."""


def _check_batch_installed(engines: tuple[str, ...]) -> None:
    """``--batch``: the reference runs on JAX (the [jax] extra), and each named engine's library must be there."""
    from crossdyn.batch.engines import engine_of
    from crossdyn.engines.registry import entry
    from crossdyn.extras import require

    require("jax", "compare --batch (its reference, jax-rk4)")
    for name in engines:
        extra = entry(engine_of(name).name).extra      # the engine table's extra (numpy-*: none, jax-*: the above)
        if extra is not None and extra != "jax":
            require(extra, f"--batch engine {name}")


def _print_batch(s: dict, out) -> None:
    """The batch's table, verdict line, failures, inconclusive lines and notes."""
    from crossdyn.batch.compare import checks_line, format_table

    print(format_table(s))
    print(f"verdict: {s['verdict']} ({checks_line(s)})  ({out / 'batch_report.md'})")
    for f in s["failures"]:
        print(f"  FAIL {f}")
    for line in s["inconclusive"]:
        print(f"  INCONCLUSIVE {line}")
    for note in s["notes"]:
        print(f"  note: {note}")


def cmd_compare_batch(spec, args) -> int:
    """``compare ARM --batch N``: see :mod:`crossdyn.batch.compare`."""
    from crossdyn.batch.compare import SAMPLE_INTERVAL_S, BatchOptions, batch_compare, write_batch_outputs
    from crossdyn.batch.engines import DEFAULT_ENGINES, batch_engine_list
    from crossdyn.errors import EngineError
    from crossdyn.batch.sampling import MAX_SPREAD
    from crossdyn.comparison.tolerances import Tolerances, load_tolerances

    N = args.batch
    extras = [k for k, on in (("armature", any(link.armature for link in spec.links)),
                              ("effort limits", any(link.effort is not None for link in spec.links)),
                              ("a joint-limit law", any(link.limit_stiffness for link in spec.links)),
                              ("tip contact with obstacles", spec.has_contact)) if on]
    if extras:  # the batched engines model the smooth arm only: never a silent mismatch
        raise _usage(f"--batch: {spec.name} has {', '.join(extras)}, which the batched engines (JAX, MJX, "
                     "mujoco.rollout, NumPy) do not model yet; compare it without --batch")
    if not 1 <= N <= MAX_BATCH:
        raise _usage(f"--batch: must be between 1 and {MAX_BATCH:,} arms, got {N:,}")
    for flag in ("duration", "dt"):
        v = getattr(args, flag)
        if not (math.isfinite(v) and v > 0):
            raise _usage(f"--{flag}: must be a positive number of seconds, got {v!r}")
    K = round(args.duration / args.dt)
    if K < 1 or abs(K * args.dt - args.duration) > 1e-9 * max(1.0, args.duration):
        raise _usage(f"--duration {args.duration:g} s is not a whole number of --dt {args.dt:g} s steps")
    samples = K // max(1, round(SAMPLE_INTERVAL_S / args.dt)) + 1
    if N * samples * spec.n > MAX_BATCH_VALUES:
        raise _usage(f"--batch {N:,} over --duration {args.duration:g} s keeps {N * samples * spec.n:,} joint angles "
                     f"per engine (at most {MAX_BATCH_VALUES:,}): fewer arms or a shorter --duration")
    if not (math.isfinite(args.spread) and 0 <= args.spread <= MAX_SPREAD):
        raise _usage(f"--spread: must be between 0 and {MAX_SPREAD}, got {args.spread!r}")
    if args.precision not in ("highest", "high", "default"):
        raise _usage(f"--precision: must be highest, high or default, got {args.precision!r}")
    if args.seed < 0:
        raise _usage(f"--seed: must be an integer >= 0, got {args.seed}")
    for flag in ("baseline", "update_baseline", "identify", "require"):
        if getattr(args, flag):
            raise _usage(f"--{flag.replace('_', '-')} does not apply to --batch")
    try:
        engines = DEFAULT_ENGINES if args.engines is None else batch_engine_list(args.engines, label="--engines")
    except EngineError as e:
        raise _usage(str(e)) from None
    _check_batch_installed(engines)
    profile = None
    if args.profile is not None:
        profile = _resolve_profile(args, spec)
        if getattr(profile, "closed_loop", False) or not hasattr(profile, "sample"):
            raise _usage(f"--profile {args.profile}: closed-loop profiles are not batched; with --batch use an "
                         "open-loop profile (zero, constant, step, sine, chirp, multisine) or a CSV file")
    tol = load_tolerances(args.tolerances) if args.tolerances else Tolerances()
    out = out_dir(args, "compare", f"{spec.name}-batch")
    _check_out_dir(out)
    progress = None if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    opt = BatchOptions(N=N, duration=args.duration, dt=args.dt, engines=engines, seed=args.seed, spread=args.spread,
                       profile=profile, precision=args.precision,
                       same_integrator_rad=tol.trajectory_same_integrator_rad, progress=progress)
    result = batch_compare(spec, opt)
    if getattr(args, "derivatives", False) and not result.interrupted:
        from crossdyn.comparison.batch_derivatives import add_to_batch

        add_to_batch(spec, result, engines, opt.dt, opt.seed, opt.N, progress or (lambda msg: None))
    try:
        write_batch_outputs(result, out)
        publish(args, out / "batch_summary.json")
    except KeyboardInterrupt:
        print(f"crossdyn: interrupted (Ctrl-C) while writing the outputs to {out}: every file there is complete "
              "(written atomically), but some may be missing or left from an earlier run", file=sys.stderr)
        return EXIT_INTERRUPTED
    _print_batch(result.summary, out)
    if result.interrupted:
        print(f"crossdyn: interrupted (Ctrl-C): wrote what finished to {out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return Exit.of(result.summary["verdict"])
