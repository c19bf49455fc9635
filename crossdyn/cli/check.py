"""``crossdyn check ARM FILE``: the command line of :mod:`crossdyn.checking.checker`.

Prints the verdict, what it rests on (the checks: values compared, entries × states × parameter sets, and
structural checks) and the diagnosis, and writes ``check.json``, ``check.md`` and ``check.html`` into
``--out DIR`` (atomically).  Exit status (:class:`crossdyn.status.Exit`, the table of every command): 0 PASS,
every checked entry matches and the structural checks pass; 1 FAIL, something is wrong; 2 the file cannot be
used (or bad arguments; or it broke a sandbox limit or tried a blocked action: ``check.json``'s verdict
``violation`` names it, see :mod:`crossdyn.checking.grading`) — then the user's traceback is shown (frames in their file only), never crossdyn's;
3 INCONCLUSIVE, a MATLAB evaluation did not return within ``--timeout`` (nothing was judged).

With ``--summary``, one row per submission in the CSV, with ``status`` in the same words: PASS (``correct``), FAIL
(``wrong``, or ``unusable``: in a class the submission is what is judged, and a file that cannot be used fails
it), INCONCLUSIVE (``timeout`` or ``crashed``: the check could not judge it; a larger ``--timeout`` may; a timeout
is FAIL with ``--timeout-fails``); the command exits FAIL 1 over INCONCLUSIVE 3 over PASS 0.  It prints a line as
each submission finishes and, every 10 s, ``still running: NAME (20 s of 120 s)`` per running one, then the table
by name with each row's score.

Importing this module is cheap (argparse only): :func:`add_parser` runs while
``crossdyn --help`` builds its parser; the checker is imported by the handler.
"""
from __future__ import annotations

import sys

from crossdyn.cli.common import add_judging_options, out_dir, publish
from crossdyn.cli.sandbox_options import add_sandbox_options
from crossdyn.status import Exit, Verdict


class Default(int):
    """A default the command line did not change (a spatial arm has its own: :data:`SPATIAL_DEFAULTS`)."""


SPATIAL_DEFAULTS = {"states": 300, "random_params": 10}
MAX_STATES = 1_000_000
MAX_RANDOM_PARAMS = 1_000


def add_parser(sub) -> None:
    """Register ``check`` on the ``crossdyn`` subparsers object."""
    p = sub.add_parser(
        "check", help="check hand-derived M, C, G (Python or MATLAB; one file or a whole class) against the "
                      "analytic model",
        description="Check your hand-derived M(q, p), C(q, qd, p) and G(q, p) against crossdyn's analytic model "
                    "at random states and random parameter sets, and say which entries and terms are wrong.  "
                    "FILE defines M (or mass_matrix), C (or coriolis / bias; the n x n matrix or the vector C qd) "
                    "and G (or gravity), with M q'' + C q' + G = tau; any may be missing.  p gives p.m, p.L, p.Lc, "
                    "p.J, p.b (0-based sequences), p.m1, p.L1 (= p.l1), p.Lc1 (= p.lc1), p.J1 (= p.I1), ... "
                    "(1-based) and p.g.  MATLAB (.m, run by GNU Octave): a script of local functions or a folder of function "
                    "files, p a struct with p.m, p.L, p.Lc, p.J (1-based vectors), p.m1, p.L1, ..., p.g.  Functions "
                    "without p (parameters written as numbers), or that return the same non-zero numbers for other "
                    "parameters, are "
                    "checked at the arm's own parameters only, on planar and spatial arms alike.  On a spatial arm "
                    "the wrong entries are named to the term within a time budget (20 s after the derivation); "
                    "entries not named by then say 'term naming unavailable'.  "
                    "With --summary, FILE is a folder of submissions (one file or sub-folder each).  "
                    "Exit status: 0 PASS (all match); 1 FAIL (something is wrong); 2 FILE cannot be used; 3 "
                    "INCONCLUSIVE (did not return within --timeout); with --summary: 1 if a submission FAILs, else "
                    "3 if one is INCONCLUSIVE, else 0.")
    p.add_argument("arm", metavar="ARM", help="preset name or TOML spec path")
    p.add_argument("file", metavar="FILE", help="your Python file or MATLAB .m file (or folder of .m function files) "
                   "defining M, C and/or G; with --summary, a folder of submissions")
    p.add_argument("--states", type=int, default=Default(1000), metavar="N", help="random states per parameter set "
                   "(default 1000; 300 for a spatial arm)")
    p.add_argument("--random-params", type=int, default=Default(20), metavar="K",
                   help="random parameter sets besides the arm's own (default 20, 10 for a spatial arm; 0 tests the "
                        "arm's own only)")
    p.add_argument("--names", metavar="M=...,C=...,G=...", help="names of your functions if not M/C/G (and F: "
                   "your joint friction F(qd, p), compared when the file defines one)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds a MATLAB evaluation may run before Octave is stopped (default 60); with --summary, "
                        "seconds per submission (default 120)")
    p.add_argument("--summary", metavar="CSV", help="FILE is a folder of submissions: check each (in parallel) and "
                   "write one row per submission to CSV, with an HTML table beside it (same name, .html); each "
                   "submission's reports go to --out/SUBMISSION")
    add_judging_options(p, "check")
    p.add_argument("--timeout-fails", action="store_true",
                   help="with --summary: grade a submission that does not finish within --timeout as wrong (FAIL, "
                        "exit 1) instead of INCONCLUSIVE (exit 3): for a grader who knows the correct files finish "
                        "well within it")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="with --summary: submissions checked at once (default: the number of cores)")
    add_sandbox_options(p)
    p.set_defaults(func=run)


def _sandboxed(args) -> str:
    """The sandbox line: the isolation, and what of the user's folder the sandboxed code sees (a single check)."""
    words = args.isolation.describe()
    if args.isolation.active and not args.summary:
        from crossdyn.equations.submission import scope_of

        words += f"; it sees {scope_of(args.file).words}"
    return words


def run(args) -> int:
    from crossdyn.cli import sandbox_options

    args.isolation = sandbox_options.apply(args)   # exit 2 for a bad --sandbox/--limit-* value or strict unmet
    sandbox_options.prestart(args)                 # a Python file's worker starts while the checker is imported
    sandboxed = _sandboxed(args)

    from crossdyn.io import UsageError
    from crossdyn.checking import checker, report
    from crossdyn.io import write_json_atomic, write_text_atomic

    spatial = _spatial_defaults(args)
    _check_arguments(args)
    if args.summary:
        if spatial:
            raise UsageError(f"check: --summary is not available for the spatial arm {args.arm} yet; check each "
                             "file on its own")
        return run_summary(args)
    try:
        names = checker.parse_names(args.names)
    except ValueError as e:
        raise UsageError(f"check: {e}") from None
    from crossdyn.io import check_out_dir
    from crossdyn.models import load_arm

    if spatial:
        from crossdyn.checking.spatial_arms import load_spatial

        arm_name = load_spatial(args.arm).name
    else:
        arm_name = load_arm(args.arm).name
    out = out_dir(args, "check", arm_name)

    check_out_dir(out, "check: --out")  # before the check runs, not after
    try:
        result = checker.check(args.arm, args.file, states=args.states, random_params=args.random_params,
                               names=names, seed=args.seed, timeout=args.timeout)   # one pipeline, both kinds
    except checker.UserFileError as e:
        print(f"crossdyn check: cannot use {args.file}", file=sys.stderr)
        print(report.indent(e.report(), "  "), file=sys.stderr)
        timed_out = bool(getattr(e, "timed_out", False))  # nothing judged: INCONCLUSIVE, not an input error
        code = Exit.INCONCLUSIVE if timed_out else Exit.USAGE   # a violation too: see crossdyn.checking.grading
        data = {"tool": "crossdyn check", "arm": args.arm, "file": args.file,
                "verdict": "violation" if e.violation else "unusable",
                "status": Verdict.INCONCLUSIVE.value if timed_out else None, "checks": {"total": 0},
                "exit_code": int(code), "function": e.function, "error": e.message, "where": e.where,
                "user_traceback": e.user_traceback, "timeout": timed_out, "violation": e.violation,
                "sandbox": sandboxed}
        print(f"sandbox: {sandboxed}" + (f"; blocked: {e.violation}" if e.violation else ""),
              file=sys.stderr)
        publish(args, write_json_atomic(out / "check.json", document(data)))
        write_text_atomic(out / "check.md", report.render_unusable_markdown(data))
        write_text_atomic(out / "check.html", report.render_unusable_html(data))
        if timed_out:
            print(f"verdict: INCONCLUSIVE (0 checks: {args.file} did not return within the timeout; raise "
                  "--timeout to judge it)", file=sys.stderr)
        return int(code)
    text = report.render_text(result)
    if args.quiet:  # the verdict line, and the line naming what is wrong
        text = "\n".join(line for line in text.splitlines() if line.startswith(("WRONG:", "verdict: ")))
    print(text)
    if not args.quiet:
        print(f"sandbox: {sandboxed}")
    publish(args, write_json_atomic(out / "check.json", document(dict(result.to_dict(),
                                                                      sandbox=sandboxed))))
    write_text_atomic(out / "check.md", report.render_markdown(result, sandboxed))
    write_text_atomic(out / "check.html", report.render_html(result, sandboxed))
    if not args.quiet:
        print(f"reports: {out / 'check.json'}, {out / 'check.md'}, {out / 'check.html'}")
    return result.exit_code


def _spatial_defaults(args) -> bool:
    """True for a spatial arm (issue 27: p by name, terms in the general parameters); its defaults replace the
    planar ones the command line left."""
    from crossdyn.checking.spatial_arms import is_spatial

    spatial = is_spatial(args.arm)
    for key, value in SPATIAL_DEFAULTS.items():
        given = getattr(args, key)
        setattr(args, key, value if spatial and isinstance(given, Default) else int(given))
    return spatial


def _check_arguments(args) -> None:
    """UsageError (exit 2) for a bad number, or --jobs without --summary."""
    from crossdyn.io import UsageError

    if args.states < 1:
        raise UsageError(f"check: --states must be >= 1, got {args.states}")
    if args.random_params < 0:
        raise UsageError(f"check: --random-params must be >= 0, got {args.random_params}")
    if args.states > MAX_STATES:
        raise UsageError(f"check: --states must be <= {MAX_STATES:,} (memory), got {args.states:,}")
    if args.random_params > MAX_RANDOM_PARAMS:
        raise UsageError(f"check: --random-params must be <= {MAX_RANDOM_PARAMS:,}, got {args.random_params:,}")
    if args.seed < 0:
        raise UsageError(f"check: --seed must be an integer >= 0, got {args.seed}")
    if args.timeout is not None and not (args.timeout > 0 and args.timeout < float("inf")):
        raise UsageError(f"check: --timeout must be a positive number of seconds, got {args.timeout:g}")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"check: --jobs must be >= 1, got {args.jobs}")
    if args.jobs is not None and not args.summary:
        raise UsageError("check: --jobs applies to a class folder checked with --summary CSV")
    if getattr(args, "timeout_fails", False) and not args.summary:
        raise UsageError("check: --timeout-fails applies to a class folder checked with --summary CSV (a single "
                         "file that does not return in time is INCONCLUSIVE, exit 3)")


def document(data: dict) -> dict:
    """``check.json``: ``data`` with ``schema`` (``crossdyn.check/1``) first."""
    from crossdyn.cli.common import SCHEMA_IDS

    return {"schema": SCHEMA_IDS["check"], **{k: v for k, v in data.items() if k != "schema"}}
def run_summary(args) -> int:
    """``check ARM FOLDER --summary grades.csv``: every submission in FOLDER, one row each."""
    from pathlib import Path

    from crossdyn.checking import grading
    from crossdyn.checking import checker
    from crossdyn.cli import sandbox_options
    from crossdyn.io import UsageError, check_out_dir, check_out_file
    from crossdyn.io import write_text_atomic
    from crossdyn.models import load_arm

    folder = Path(args.file)
    if not folder.is_dir():
        raise UsageError(f"check: --summary needs a folder of submissions, and {args.file} is "
                         + ("not a folder" if folder.exists() else "missing"))
    csv_path = Path(args.summary)
    if csv_path.suffix.lower() != ".csv":
        raise UsageError(f"check: --summary {args.summary}: give a .csv file name (the HTML table goes beside it)")
    check_out_file(csv_path, "check: --summary")
    spec = load_arm(args.arm)        # a bad arm is one error, not one per submission
    out = out_dir(args, "check", spec.name)
    try:
        checker.parse_names(args.names)
    except ValueError as e:
        raise UsageError(f"check: {e}") from None
    subs, skipped = grading.find_submissions(folder)
    if not subs:
        raise UsageError(f"check: {args.file} holds no submissions (.py or .m files, or sub-folders with them)")
    matlab = [sub.name for sub in subs if sub.language == "matlab"]
    if matlab:  # without Octave every MATLAB submission would read "unusable" (FAIL) for the machine's sake
        from crossdyn.equations.octave_session import INSTALL_HINT, find_octave

        if find_octave() is None:
            raise UsageError(f"check: {args.file} holds MATLAB submissions ({', '.join(matlab)}) and this machine "
                             f"has no octave-cli: {INSTALL_HINT}")
    check_out_dir(out, "check: --out")  # after every check of the input: bad input leaves no folder behind
    timeout = args.timeout or grading.DEFAULT_TIMEOUT
    if not args.quiet:
        print(f"crossdyn check {args.arm}: {len(subs)} submissions in {args.file} "
              f"({args.jobs or 'one per core'} at a time, {timeout:g} s each at most)\n"
              f"sandbox: {args.isolation.describe()}")

    rows, _ = grading.grade(str(args.arm), folder, out, jobs=args.jobs, timeout=timeout,
                            states=args.states, random_params=args.random_params, seed=args.seed, names=args.names,
                            progress=None if args.quiet else _done, sandbox=tuple(sandbox_options.passed_on(args)),
                            still_running=None if args.quiet else _still_running,
                            timeout_fails=bool(args.timeout_fails))
    if not args.quiet:
        print("grades, by name (score: entries of M, C qd and G right / checked):")
        for row in rows:
            print(_table_line(row))
    html_path = csv_path.with_suffix(".html")
    write_text_atomic(csv_path, grading.to_csv(rows, spec.n))
    write_text_atomic(html_path, grading.to_html(rows, spec.n, f"crossdyn check {spec.name}: {folder.name}",
                                                 reports=out, html_dir=html_path.parent,
                                                 isolation=args.isolation.describe()))
    counts = {v: sum(r.verdict == v for r in rows) for v in grading.GradeVerdict}
    if not args.quiet:
        print(", ".join(f"{c} {v}" for v, c in counts.items() if c)
              + (f"; skipped (not .py/.m): {', '.join(skipped)}" if skipped else ""))
        print(f"summary: {csv_path}, {html_path}; reports: {out}/<submission>/")
    from crossdyn.checking.grades_document import ClassRun, grades_document
    from crossdyn.io import write_json_atomic

    run = ClassRun(str(args.arm), spec.n, str(folder), tuple(skipped), args.isolation.describe(),
                   bool(args.timeout_fails))
    publish(args, write_json_atomic(csv_path.with_suffix(".json"), grades_document(run, rows)))
    verdict = Verdict.combine(r.status for r in rows)
    print(f"verdict: {verdict.value} ({grading.status_line(rows)})")
    return Exit.of(verdict)


def _done(row) -> None:
    """A submission's line as it finishes (completion order)."""
    print(f"  done: {row.submission} {row.verdict} {row.score_text} ({row.runtime_s:.0f} s)", flush=True)


def _still_running(name: str, elapsed: float, timeout: float) -> None:
    """``still running: alice.py (20 s of 120 s)`` while a submission runs."""
    print(f"  still running: {name} ({elapsed:.0f} s of {timeout:g} s)", flush=True)


def _table_line(row) -> str:
    """One row of the final table: status, verdict, name (score, when something was judged): diagnosis."""
    score = f" ({row.score_text})" if row.score[1] else ""
    return f"  {row.status.value:12s} {row.verdict:9s} {row.submission}{score}: {row.diagnosis}"
