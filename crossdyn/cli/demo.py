"""``crossdyn demo``: the default comparison of planar2r and planar3r (what ``make demo`` runs), one process
per arm, an ``index.md`` linking both reports."""
from __future__ import annotations

import sys
from pathlib import Path

from crossdyn.cli.common import add_judging_options, out_dir, publish
from crossdyn.cli.compare import _check_out_dir, _common, _options, _resolve_profile, _usage, run_one


def add_parser(sub) -> None:
    """Register ``demo`` (imports nothing heavy)."""
    p = sub.add_parser("demo", help="the default comparison of planar2r and planar3r (what `make demo` runs)",
                       description="Compare planar2r and planar3r (one process each) and write each one's report "
                                   "into --out/ARM, index.md linking both, and demo.json (both summaries and the "
                                   "combined verdict).")
    _common(p)
    add_judging_options(p, "demo")
    p.set_defaults(func=cmd_demo)


DEMO_ARMS = ("planar2r", "planar3r")


def _demo_worker(arm: str, args, out: Path):
    from crossdyn.models import get_preset

    lines: list[str] = []
    code, summary = run_one(get_preset(arm), args, out / arm, echo=lines.append)
    return (130 if summary.get("interrupted") else code), summary["verdict"], lines


def cmd_demo(args) -> int:
    """planar2r and planar3r, one process each (engines inside run sequentially)."""
    import copy
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from crossdyn.io import write_text_atomic

    from crossdyn.models import get_preset

    out = out_dir(args, "demo")
    if args.jobs is not None and args.jobs < 1:
        raise _usage(f"--jobs: must be >= 1, got {args.jobs}")
    from crossdyn.cli.compare import check_installed

    check_installed(args.engines, None if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True)))
    for arm in DEMO_ARMS:  # every option checked here, before any process starts
        spec = get_preset(arm)
        _options(args, spec)
        _resolve_profile(args, spec)
    _check_out_dir(out)
    jobs = args.jobs if args.jobs is not None else 2
    inner = copy.copy(args)
    inner.jobs = 1
    if jobs > 1:
        import signal

        # fork (fast, nothing to re-import) unless this process already imported JAX, whose threads a forked
        # child would inherit locked: then a forkserver, which never had them (the job is pickled to it)
        method = "forkserver" if "jax" in sys.modules else "fork"
        with ProcessPoolExecutor(max_workers=min(jobs, len(DEMO_ARMS)), mp_context=mp.get_context(method)) as pool:
            futures = [pool.submit(_demo_worker, arm, inner, out) for arm in DEMO_ARMS]
            # the workers (already started) handle Ctrl-C themselves and write what finished; the parent
            # waits for them instead of abandoning them, then writes the index
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                results = [f.result() for f in futures]
            finally:
                signal.signal(signal.SIGINT, previous)
    else:
        results = [_demo_worker(arm, inner, out) for arm in DEMO_ARMS]
    index = ["# crossdyn demo", ""]
    for arm, (_code, verdict, lines) in zip(DEMO_ARMS, results, strict=False):
        print("\n".join(lines))
        print()
        index.append(f"- [{arm}]({arm}/report.html): **{verdict.upper()}**")
    write_text_atomic(out / "index.md", "\n".join(index) + "\n")
    from crossdyn.status import Exit, Verdict

    verdict = Verdict.combine(verdict.upper() for _, verdict, _ in results)
    interrupted = any(code == 130 for code, _, _ in results)
    code = 130 if interrupted else int(Exit.of(verdict))
    publish(args, _write_document(out, verdict, code, [code for code, _, _ in results]))
    print(f"verdict: {verdict.value} (" + ", ".join(f"{arm} {v.upper()}" for arm, (_, v, _) in zip(DEMO_ARMS, results,
                                                                                             strict=True))
          + f")  ({out / 'index.md'})")
    if interrupted:
        print(f"interrupted: wrote what finished to {out}", file=sys.stderr)
    return code


def _write_document(out: Path, verdict, code: int, codes: list[int]) -> Path:
    """``demo.json`` (schema ``crossdyn.demo/1``): the combined verdict (FAIL over INCONCLUSIVE over PASS), the exit
    status, and per arm its exit status and its ``summary.json`` (schema ``crossdyn.compare/2``) as written."""
    import json

    from crossdyn.cli.common import SCHEMA_IDS
    from crossdyn.io import write_json_atomic

    arms = {}
    for arm, arm_code in zip(DEMO_ARMS, codes, strict=True):
        path = out / arm / "summary.json"
        arms[arm] = {"exit_code": arm_code, "report": f"{arm}/report.html",
                     "summary": json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None}
    return write_json_atomic(out / "demo.json", {"schema": SCHEMA_IDS["demo"], "verdict": verdict.value,
                                                 "exit_code": code, "arms": arms})
