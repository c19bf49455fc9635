"""``crossdyn sweep SWEEP.toml --out DIR`` and ``crossdyn sweep report DIR``.

Exit status (:class:`crossdyn.status.Exit`, the table of every command): 0 every comparison PASS (each made
checks); 1 one FAIL (a metric out of tolerance, an engine failed or diverged) or a chunk of the sweep missing;
2 bad usage or input (the sweep file's key and value named); 3 none failed but one is INCONCLUSIVE (could not
be judged: an engine unsupported, a group not exercised; the report says why); 130 Ctrl-C (finished chunks are
kept: run the same command again to resume).
"""
from __future__ import annotations

import sys

from crossdyn.cli.common import add_judging_options, out_dir, publish
from crossdyn.status import Exit

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = Exit.PASS, Exit.FAIL, Exit.USAGE, Exit.INTERRUPTED


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep", help="measure many arms × engines × time steps on Dask; `sweep report DIR` writes the report",
        description="Run every comparison of SWEEP.toml (arms × engines × dt × profiles, metrics only) on a "
                    "Dask cluster, one Parquet file per chunk of comparisons in DIR/results/, then write "
                    "DIR/sweep.md and DIR/sweep.html.  Re-running skips chunks already written.  "
                    "`crossdyn sweep report DIR` rewrites the report from DIR's results.  The report's verdict and "
                    "tables are also written as DIR/sweep-report.json (what --json prints).")
    p.add_argument("file", metavar="SWEEP.toml|report", help="the sweep file, or `report` followed by DIR")
    p.add_argument("dir", metavar="DIR", nargs="?", help="(with `report`) the sweep's output directory")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: start a local cluster)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local cluster: N worker processes (default: one per core); with --scheduler: wait for "
                        "N workers before starting")
    p.add_argument("--no-report", action="store_true", help="do not write the report at the end")
    add_judging_options(p, "sweep")
    p.set_defaults(func=cmd_sweep)


def _usage(msg: str):
    from crossdyn.io import UsageError

    return UsageError(msg)


def cmd_sweep(args) -> int:
    from crossdyn.extras import require

    require("sweep", "crossdyn sweep")  # before any work: no empty output folder left behind
    if args.file == "report":
        return _report(args)
    return _run(args)


def _report(args) -> int:
    from crossdyn.sweeps.report import write_report

    if not args.dir:
        raise _usage("sweep report: give the sweep's output directory: crossdyn sweep report DIR")
    for opt in ("out", "scheduler", "workers"):
        if getattr(args, opt) is not None:
            raise _usage(f"sweep report: --{opt} is for running a sweep, not for its report")
    rep = write_report(args.dir)
    publish(args, write_document(rep, args.dir))
    _print_report(rep)
    print("\n".join(rep.recovery))
    return Exit.of(rep.verdict)


def _print_report(rep) -> None:
    total = f"{rep.rows}" + (f" of {rep.expected}" if rep.expected else "")
    c = rep.counts
    print(f"{total} comparisons: {c['PASS']} PASS, {c['FAIL']} FAIL, {c['INCONCLUSIVE']} INCONCLUSIVE"
          + (f"; {rep.missing_chunks} chunk(s) not run yet" if rep.missing_chunks else ""))
    t = rep.by_engine
    w = max([20, *(len(e) for e in t["engine"])])
    print(f"{'engine':{w}s} {'dt [s]':>8s} {'n':>5s} {'pass':>6s} {'fail':>5s} {'inc.':>5s} {'checks':>9s} "
          f"{'traj p50':>9s} {'traj p90':>9s} {'compute/sim s':>13s}")
    for r in t.itertuples(index=False):
        print(f"{r.engine:{w}s} {r.dt:8g} {r.comparisons:5d} {r.pass_rate:6.0%} {r.failed:5d} {r.inconclusive:5d} "
              f"{r.checks:9d} {r.traj_p50:9.2e} {r.traj_p90:9.2e} {r.compute_s_per_sim_s_median:13.3g}")
    for f in rep.failures.head(20).itertuples(index=False):
        print(f"  {f.verdict} {f.arm} {f.engine} dt {f.dt:g} {f.profile}: {f.why}")
    if len(rep.failures) > 20:
        print(f"  … and {len(rep.failures) - 20} more (see the report)")
    html = next((f for f in rep.files if f.name == "sweep.html"), None)
    print(f"verdict: {rep.verdict.value} ({c['checks']} checks)" + (f"  ({html})" if html else ""))


def _run(args) -> int:
    from crossdyn.io import check_out_dir
    from crossdyn.sweeps.execute import run_sweep
    from crossdyn.sweeps.report import write_report
    from crossdyn.sweeps.sweepfile import load_sweep

    if args.dir:
        raise _usage(f"sweep: unexpected argument {args.dir!r} (run: crossdyn sweep SWEEP.toml --out DIR; "
                     "report: crossdyn sweep report DIR)")
    if args.json and args.no_report:
        raise _usage("sweep: --json prints the report's document (sweep-report.json); drop --no-report")
    if args.workers is not None and args.workers < 1:
        raise _usage(f"--workers: must be >= 1, got {args.workers}")
    sweep = load_sweep(args.file)
    out = out_dir(args, "sweep", sweep.name)
    check_out_dir(out, "--out")
    run = run_sweep(sweep, out, scheduler=args.scheduler, workers=args.workers, quiet=args.quiet)
    for note in run.notes:
        print(f"crossdyn: note: {note}", file=sys.stderr)
    n = len(run.chunks)
    where = f"on {run.workers} worker(s)" if run.workers else "(nothing to run)"
    print(f"sweep {sweep.name}: {sweep.comparisons} comparisons in {n} chunks: {run.written} run now, "
          f"{run.skipped} already written; {run.wall_s:.1f} s {where}")
    if run.workers:
        from crossdyn.sweeps.recovery import lines

        print("\n".join(lines([run.recovery.to_dict()])))
    if run.interrupted:
        print(f"crossdyn: interrupted: {run.skipped + run.written} of {n} chunks are in {out}/results; run "
              "the same command again to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.no_report:
        from crossdyn.sweeps.report import sweep_verdict

        return Exit.of(sweep_verdict(out)[0])
    rep = write_report(out)
    publish(args, write_document(rep, out))
    _print_report(rep)
    return Exit.of(rep.verdict)


def write_document(rep, out):
    """``DIR/sweep-report.json`` (schema ``crossdyn.sweep-report/1``): the sweep's verdict (FAIL if a comparison
    failed or a chunk is missing, else INCONCLUSIVE if one was, else PASS), the counts behind it, the per-engine
    table and the comparisons that did not pass, as the report shows them; the settings are ``sweep.json``'s."""
    import json
    from pathlib import Path

    from crossdyn.cli.common import SCHEMA_IDS
    from crossdyn.io import write_json_atomic

    out = Path(out)
    manifest = out / "sweep.json"
    settings = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else None

    def records(frame) -> list:
        return json.loads(frame.to_json(orient="records")) if frame is not None else []

    c = rep.counts
    doc = {"schema": SCHEMA_IDS["sweep"], "name": (settings or {}).get("name"), "verdict": rep.verdict.value,
           "comparisons": int(rep.rows), "expected": None if rep.expected is None else int(rep.expected),
           "missing_chunks": int(rep.missing_chunks),
           "counts": {k: int(c.get(k, 0)) for k in ("PASS", "FAIL", "INCONCLUSIVE", "checks")},
           "by_engine": records(rep.by_engine), "failures": records(rep.failures),
           "files": [f.name for f in rep.files], "settings": settings}
    return write_json_atomic(out / "sweep-report.json", doc)
