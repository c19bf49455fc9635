"""``crossdyn identify``: estimate an arm's base inertial and friction parameters from joint data.

    crossdyn identify ARM [--engine NAME | --data FILE.csv [--validation-data FILE.csv]]
                          [--estimator ols|wls|consistent] [--noise encoder=R,torque=S,velocity=differentiate]
                          [--seed S] [--duration S] [--rate HZ] [--diagnose-engines a,b,…] [--out DIR]
                          [--truth spec|none] [--quiet]

A spatial arm (a spatial preset or spec, a URDF or MJCF file) goes through the same driver; its options are checked
by :mod:`crossdyn.cli.identify_spatial`.

Exit statuses: 0 PASS (validation within tolerance and every true value inside its family-wise interval);
1 FAIL (one is not); 2 usage or input error; 3 INCONCLUSIVE (no true values to compare against: CSV data
without ``--truth spec``).  ``--quiet`` prints the verdict line only; ``--out`` and ``--json`` as every judging
command's (:mod:`crossdyn.cli.common`).
"""
from __future__ import annotations

import math
import sys

from crossdyn.cli.common import add_judging_options, out_dir, publish
from crossdyn.status import Exit

EXIT_OK, EXIT_FAIL, EXIT_INCONCLUSIVE = Exit.PASS, Exit.FAIL, Exit.INCONCLUSIVE


def add_parser(sub) -> None:
    p = sub.add_parser("identify", help="identify an arm's base parameters from an engine's or a CSV's joint data")
    p.add_argument("arm", metavar="ARM", help="preset name, TOML spec path, or a robot file (.urdf, MJCF .xml)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--engine", metavar="NAME", default=None,
                     help="simulate the excitation on this engine (default: analytic; 'exact' = the analytic "
                          "model's inverse dynamics along the trajectory, no integration)")
    src.add_argument("--data", metavar="FILE.csv", help="columns time, q1..qn, tau1..taun [, qd1..qdn, qdd1..qddn]")
    p.add_argument("--validation-data", metavar="FILE.csv", help="second record for validation (with --data)")
    p.add_argument("--estimator", choices=["ols", "wls", "consistent"], default="ols")
    p.add_argument("--model", choices=["auto", "step", "energy", "filtered"], default="auto",
                   help="regression rows (auto: the exact discrete relation for noise-free engine data, "
                        "filtered differentiation otherwise)")
    p.add_argument("--noise", metavar="SPEC", default="", help="e.g. encoder=1e-4,torque=0.05,velocity=differentiate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--duration", type=float, default=None, help="s of excitation (default: one period, 10 s)")
    p.add_argument("--rate", type=float, default=200.0, help="sample rate of noisy data (Hz), default 200")
    p.add_argument("--no-optimise", action="store_true", help="use a random Fourier excitation")
    p.add_argument("--tolerance", type=float, default=None, help="validation relative RMS limit (default 0.05)")
    p.add_argument("--diagnose-engines", metavar="A,B,…", default="",
                   help="also identify each engine from its own noise-free data and name the base parameters "
                        "that moved")
    p.add_argument("--truth", choices=["spec", "none"], default=None,
                   help="what the estimate is judged against: 'spec' the arm file's base parameters, 'none' nothing "
                        "(verdict INCONCLUSIVE, exit 3, unless validation fails); default spec for simulated data, "
                        "none for --data")
    add_judging_options(p, "identify")
    p.set_defaults(func=run)


def run(args) -> int:
    """``crossdyn identify`` for either arm kind: one driver (:func:`crossdyn.identification.identify.identify`),
    one result, one report writer; a spatial arm's options are checked by :mod:`crossdyn.cli.identify_spatial`."""
    from crossdyn.io import check_out_dir
    from crossdyn.identification.identify import diagnose_engines, identify
    from crossdyn.identification.report import console_lines, write_outputs
    from crossdyn.models import load_arm

    if args.estimator == "consistent":
        from crossdyn.extras import require

        require("identify", "identify --estimator consistent (a convex program)")
    from crossdyn.cli.identify_spatial import spatial_model, spatial_options

    model = spatial_model(args.arm)  # a spatial preset or spec, a URDF or MJCF file; None: a planar arm
    arm = model if model is not None else load_arm(args.arm)
    check_numbers(args)
    engine, options, diag_engines = spatial_options(args) if model is not None else _planar_options(args, arm)
    out = out_dir(args, "identify", arm.name)
    check_out_dir(out, "identify: --out")  # after the options' checks: bad input leaves no folder behind
    res = identify(arm, engine, csv=args.data, validation_csv=args.validation_data, options=options)
    diag = diagnose_engines(arm, diag_engines, seed=args.seed) if diag_engines else None
    paths = write_outputs(res, out, diag)
    publish(args, paths["json"])
    if not args.quiet:
        print("\n".join(console_lines(res, diag)))
    verdict, reason = res.judgement()
    print(f"verdict: {verdict.value} ({res.checks_line()}): {reason}  ({paths['report']})")
    if not args.quiet:
        for note in res.info.get("notes", []):
            print(f"  note: {note}")
    sys.stdout.flush()
    return Exit.of(verdict)


def check_numbers(args) -> None:
    """``--duration``, ``--rate``, ``--tolerance`` positive and finite; ``--validation-data`` only with ``--data``."""
    from crossdyn.io import UsageError

    for name in ("duration", "rate", "tolerance"):
        v = getattr(args, name)
        if v is not None and not (math.isfinite(v) and v > 0):
            raise UsageError(f"identify: --{name}: must be a positive number, got {v!r}")
    if args.validation_data and not args.data:
        raise UsageError("identify: --validation-data needs --data")


def _planar_options(args, spec) -> tuple:
    """(engine or None for ``exact``, :class:`IdentifyOptions`, the ``--diagnose-engines`` list) of a planar arm;
    every engine named is built once now (exit 2 before anything runs)."""
    from crossdyn.engines.registry import split_engine_list
    from crossdyn.identification import data as D
    from crossdyn.identification.identify import VALIDATION_TOLERANCE, IdentifyOptions

    engine = args.engine or "analytic"
    diag_engines = split_engine_list(args.diagnose_engines)  # as compare's --engines
    for option, name in [("--engine", engine)] * (engine != "exact") + [("--diagnose-engines", e) for e in diag_engines]:
        _check_engine(option, name, spec)
    noise = D.NoiseModel.parse(args.noise)  # DataError is an InputError: exit 2 with its message
    options = IdentifyOptions(estimator=args.estimator, noise=noise, seed=args.seed, duration=args.duration,
                              rate=args.rate, model=args.model, optimise=not args.no_optimise,
                              validation_tolerance=args.tolerance or VALIDATION_TOLERANCE,
                              truth=args.truth or "auto")
    return None if engine == "exact" else engine, options, diag_engines


def _check_engine(option: str, name: str, spec) -> None:
    """Build the engine once now, so an unknown name or option is exit 2 before anything runs."""
    from crossdyn.engines import EngineError, make_engine
    from crossdyn.io import UsageError

    try:
        make_engine(name, spec, 1e-3).close()
    except (EngineError, TypeError, ValueError) as e:
        raise UsageError(f"identify: {option} {name}: {e}") from None

