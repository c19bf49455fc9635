"""``crossdyn compare ROBOT.urdf|ROBOT.xml``: the comparison on a robot file (:mod:`crossdyn.robotcompare`).

``crossdyn compare`` hands an ARM ending in ``.urdf``, ``.xml`` or ``.mjcf`` here (:func:`is_robot_file`), and a
spatial arm (a spatial preset or a TOML with ``[arm] kind = "spatial"``: :func:`cmd_compare_spatial`, its URDF and
MJCF written into the run's folder); the planar path is untouched.  Options read: ``--engines`` (file engines, ``name@key=value,…``), ``--effort``, ``--duration``,
``--dt``, ``--states``, ``--seed``, ``--native`` (:mod:`crossdyn.robotcompare.limits`), ``--tolerances``, ``--out``, ``--quiet``, ``--json``, ``--no-plots``; the
planar-only options are refused with exit 2 naming them.  Exit statuses as every command (0 PASS, 1 FAIL,
3 INCONCLUSIVE, 2 bad input naming the file, element and value).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

from crossdyn.cli.common import out_dir, publish
from crossdyn.errors import UsageError
from crossdyn.robots.formats import ROBOT_SUFFIXES
from crossdyn.status import Exit

PLANAR_ONLY = {"profile": None, "q0": None, "qd0": None, "allow_invalid_start": False, "list_profiles": False,
               "baseline": None, "update_baseline": False, "identify": False, "batch": None,
               "native_friction": False, "characterise_friction": False,
               "calibrate_limits": False, "calibrate_contact": False}
"""``compare`` options that apply to the planar arms only, with their defaults (given on a robot file: exit 2)."""


def is_robot_file(arm: str) -> bool:
    """True when ARM names a robot file by its suffix (``.urdf``, ``.xml``, ``.mjcf``)."""
    return Path(arm).suffix.lower() in ROBOT_SUFFIXES


ROBOT_DURATION = 2.0
"""The default --duration on a robot file or a spatial arm (s).  crossdyn's spatial reference costs ~13 ABA calls
per step; with the single-state ABA on cached model constants (:mod:`crossdyn.spatial.compiled`) 2 s of
example-robot-data's UR5 with every engine costs about what 0.5 s did before (measured 21–27 s of CPU against
19–22 s; 3 s: 31 s), and covers most of a period of the multi-sine's slowest component (0.4 Hz: 2.5 s).  Not the
planar 3 s: the cost grows with the joints (ABA is O(n) per call, the engines' own stepping too)."""


def _check_args(args) -> None:
    if args.duration is None:
        args.duration = ROBOT_DURATION
    for name, default in PLANAR_ONLY.items():
        if getattr(args, name, default) not in (default,):
            raise UsageError(f"--{name.replace('_', '-')}: applies to the planar arms, not to a robot file or a "
                             f"spatial arm ({args.arm}); drop it")
    for flag in ("duration", "dt"):
        v = getattr(args, flag)
        if not (math.isfinite(v) and v > 0):
            raise UsageError(f"--{flag}: must be a positive number of seconds, got {v!r}")
    k = round(args.duration / args.dt)
    if k < 1 or abs(k * args.dt - args.duration) > 1e-9 * max(1.0, args.duration):
        raise UsageError(f"--duration {args.duration:g} s is not a whole number of --dt {args.dt:g} s steps")
    if args.states < 1 or args.seed < 0:
        raise UsageError(f"--states must be >= 1 and --seed >= 0, got {args.states} and {args.seed}")


def _engines(args) -> tuple[str, ...] | None:
    """--engines as file-engine specs; exit 2 naming an unknown engine, a malformed option or one the engine does
    not take (before any work)."""
    from crossdyn.engines.files import ALL_FILE_ENGINES as FILE_ENGINES
    from crossdyn.engines.registry import knob_hint, split_engine_list, split_options
    from crossdyn.errors import EngineError

    if args.engines is None:
        return None
    specs = tuple(split_engine_list(args.engines))
    for spec in specs:
        if spec.startswith("user:"):         # the user's equations (a DH arm's; a robot file's is unsupported)
            if not Path(spec[len("user:"):]).exists():
                raise UsageError(f"--engines {spec}: no such file: {spec[len('user:'):]}", "--engines", spec)
            continue
        try:
            name, options = split_options(spec)
        except EngineError as e:
            raise UsageError(f"--engines {args.engines}: {e}", "--engines", spec) from None
        if name not in FILE_ENGINES:
            from crossdyn.engines.files import file_engine_status

            raise UsageError(f"--engines {args.engines}: {file_engine_status(name, None)}", "--engines", name)
        valid = FILE_ENGINES[name].option_names()
        unknown = [k for k in options if k not in valid]
        if unknown:
            raise UsageError(f"--engines {spec}: {name} has no option {', '.join(unknown)}; it takes: "
                             f"{', '.join(valid)}{knob_hint(unknown, valid)}", "--engines", spec)
    return specs


def cmd_compare_robot(args) -> int:
    """Run the comparison on the robot file ``args.arm``, write its outputs, print the table and verdict."""
    from crossdyn.errors import InputError
    from crossdyn.robots import read_robot
    from crossdyn.robots.checks import singular_mass_message

    _check_args(args)
    model = read_robot(args.arm)  # exit 2 naming the file, the element and the value
    singular = singular_mass_message(model)
    if singular is not None:  # forward dynamics undefined: exit 2 naming the file and the cause, no traceback
        raise InputError(f"compare: {singular}", where=args.arm)
    _check_effort(args, model)
    return _run(args, model, None, Path(args.arm).stem)


def _check_effort(args, model) -> None:
    """``--effort`` on a robot (file or spatial arm) none of whose joints states an effort limit: exit 2 naming it."""
    from crossdyn.robotcompare.motion import effort_limits

    if getattr(args, "effort", False) and not any(math.isfinite(e) for e in effort_limits(model)):
        raise UsageError(f"--effort: {args.arm} states no effort limit on any joint (URDF <limit effort>, MJCF "
                         "actuatorfrcrange or an actuator's forcerange, a spatial spec's joint effort); drop --effort",
                         "--effort", args.arm)


def cmd_compare_spatial(spec, args) -> int:
    """``compare NAME|SPEC.toml`` on a spatial arm (:mod:`crossdyn.robotcompare.spatial`): its URDF and MJCF
    written into the run's folder, every engine on one of them, the reference the spec's own model."""
    _check_args(args)
    _check_effort(args, spec.to_robot_model())
    return _run(args, None, spec, spec.name)


def _run(args, model, spec, stem: str) -> int:
    from crossdyn.comparison.tolerances import Tolerances, load_tolerances
    from crossdyn.io import check_out_dir
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot, write_outputs
    from crossdyn.robotcompare.report import checks_line, format_table

    engines = _engines(args)
    tol = load_tolerances(args.tolerances) if args.tolerances else Tolerances()
    out = out_dir(args, "compare", stem)
    check_out_dir(out, "--out")
    progress = None if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    opt = RobotCompareOptions(engines=engines, duration=args.duration, dt=args.dt, n_states=args.states,
                              seed=args.seed, tolerances=tol, progress=progress,
                              native=bool(getattr(args, "native", False)), effort=getattr(args, "effort", False),
                              derivatives=bool(getattr(args, "derivatives", False)),
                              choose_dt=not getattr(args, "dt_given", True))
    if spec is not None:
        from crossdyn.robotcompare.spatial import compare_spatial

        result = compare_spatial(spec, opt, out)
    else:
        result = compare_robot(model, opt)
    write_outputs(result, out, plots=not args.no_plots)
    publish(args, out / "summary.json")
    s = result.summary
    print(format_table(s))
    if "limits" in s:  # --native: the engines' own limit enforcement, per contact
        from crossdyn.robotcompare.limits import table

        for line in table(s["limits"]):
            print(line)
    print(f"verdict: {s['verdict']} ({checks_line(s)})  ({out / 'report.html'})")
    for line in s["failures"]:
        print(f"  FAIL {line}")
    for line in s["inconclusive"]:
        print(f"  INCONCLUSIVE {line}")
    for line in s.get("not_exercised", []):
        print(f"  NOT EXERCISED {line}")
    for note in s["notes"]:
        print(f"  note: {note}")
    if s.get("interrupted"):
        skipped = [k for k, e in s["engines"].items() if e["status"] == "skipped"]
        print(f"crossdyn: interrupted (Ctrl-C): wrote what finished to {out}; skipped: {', '.join(skipped)}",
              file=sys.stderr)
        return Exit.INTERRUPTED
    return Exit.of(s["verdict"])
