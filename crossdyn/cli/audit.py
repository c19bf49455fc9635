"""``crossdyn audit FILE [FILE…]``: the command line of :func:`crossdyn.audit.audit`.

Reads each robot file (URDF or MJCF), diffs every later file against the first, loads each file in every engine that
reads its format (``--engines`` to choose; ``--engines none`` for the file diff alone) and compares M, G, C·q̇ and
inverse dynamics at ``--states`` random states with crossdyn's spatial reference.  Prints the verdict with its count
and one line per difference; writes ``summary.json``, ``audit.md``, ``audit.html`` and the plots into ``--out``
(default ``crossdyn-report/audit/NAME``, NAME the first file's robot).  Exit status: 0 PASS, 1 FAIL, 3
INCONCLUSIVE, 2 a bad file (the reader's message names the file, the element and the value) or bad arguments.

Importing this module is cheap (argparse only).
"""
from __future__ import annotations

from crossdyn.cli.common import add_judging_options, out_dir, publish

MAX_STATES = 1_000_000


def add_parser(sub) -> None:
    """Register ``audit`` on the ``crossdyn`` subparsers object."""
    p = sub.add_parser(
        "audit", help="diff robot files (URDF, MJCF) of one robot and check how every engine reads them",
        description="Audit robot files of one robot: bodies matched (by name, joint name or place in the tree), "
                    "every parameter side by side in the world frame at q = 0 with stated tolerances, and M(q), "
                    "G(q), C(q, qd) qd and inverse dynamics of each file as every installed engine reads it "
                    "against crossdyn's spatial reference at random states within the limits.  Each difference is "
                    "labelled 'the files differ' or 'engine X reads the file differently', with the parameter "
                    "responsible where one explains it.")
    p.add_argument("files", metavar="FILE", nargs="+", help="robot files (.urdf, MJCF .xml); the first is the "
                   "reference of the file diff")
    p.add_argument("--engines", metavar="E1,E2", default=None,
                   help="file engines to load each file with (default: all float64 ones; 'none' for the file diff "
                        "alone): pinocchio, mujoco, pybullet, pybullet-noflag, drake, dart; float32, run when named: "
                        "mujoco-warp, newton, genesis")
    p.add_argument("--states", type=int, default=100, metavar="N", help="random states (default 100)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--match-sign", action="store_true",
                   help="match joints whose axes point opposite ways in two files by sign (q of one is -q of the "
                        "other) instead of failing them as 'axis reversed'")
    p.add_argument("--no-plots", action="store_true", help="write no figures (faster)")
    add_judging_options(p, "audit")
    p.set_defaults(func=run)


def parse_engines(text: str | None) -> list[str] | None:
    """``--engines``: None (all), [] ("none" or empty), or the names given."""
    if text is None:
        return None
    names = [x.strip() for x in text.split(",") if x.strip()]
    return [] if names in ([], ["none"]) else names


def run(args) -> int:
    from crossdyn.errors import UsageError

    if args.states < 1 or args.states > MAX_STATES:
        raise UsageError(f"audit: --states must be between 1 and {MAX_STATES:,}, got {args.states:,}")
    if args.seed < 0:
        raise UsageError(f"audit: --seed must be an integer >= 0, got {args.seed}")
    from crossdyn.audit import audit
    from crossdyn.audit.result import document
    from crossdyn.audit.words import finding_lines
    from crossdyn.io import check_out_dir, write_json_atomic
    from crossdyn.reporting.audit import write_report
    from crossdyn.robots import read_robot

    first = read_robot(args.files[0])       # a bad file exits 2 before any folder is made
    out = out_dir(args, "audit", first.name)
    check_out_dir(out, "audit: --out")

    def progress(line: str) -> None:
        if not args.quiet:
            print(f"  {line}", flush=True)

    result = audit(list(args.files), parse_engines(args.engines), args.states, args.seed, progress=progress,
                   match_sign=args.match_sign)
    findings = finding_lines(result)
    for line in findings:  # --quiet: the lines naming a FAIL or an INCONCLUSIVE, and the verdict
        if not args.quiet or line.startswith(("FAIL", "INCONCLUSIVE")):
            print(line)
    print(result.verdict_line())
    publish(args, write_json_atomic(out / "summary.json", document(result, findings)))
    paths = write_report(out, result, findings, with_plots=not args.no_plots)
    if not args.quiet:
        print(f"reports: {out / 'summary.json'}, " + ", ".join(str(p) for p in paths if p.suffix != ".png"))
    return result.exit_code
