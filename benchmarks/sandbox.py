"""What the sandbox costs (issue 29): per submission, and for a class of 30, side by side with ``--sandbox off``.

1. Per submission: ``crossdyn check`` of one Python and one MATLAB file, ``--sandbox off`` and ``auto`` alternated,
   ``--repeats`` times each; prints the median wall time of each, their difference (the overhead; goal <= 0.5 s)
   and ratio.
2. A class of 30 submissions (10 copies each of examples/check/my_3r_buggy.py and .m and of
   tests/check_files/textbook_3r.py, arm planar3r, ``--jobs 2``): the wall time of ``check --summary`` with
   ``--sandbox off`` and ``auto`` (goal: auto within 1.3x), and with ``--baseline-tree DIR`` also the same class
   graded by another crossdyn source tree (e.g. the main branch before the sandbox: "today's time").

    python benchmarks/sandbox.py [--repeats 5] [--no-class] [--baseline-tree /path/to/crossdyn-main]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--states", "1000", "--random-params", "20"]


def timed(cmd: list[str], tree: Path, cwd: Path) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("CROSSDYN_SANDBOX", None)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "crossdyn", *cmd], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t0, r.returncode


def per_submission(repeats: int, work: Path) -> None:
    print(f"per submission: crossdyn check (median of {repeats}, off and auto alternated)")
    print(f"  {'file':32s} {'off [s]':>8s} {'auto [s]':>9s} {'overhead [s]':>13s} {'ratio':>6s}")
    for arm, file in (("planar3r", ROOT / "examples/check/my_3r_buggy.py"),
                      ("planar3r", ROOT / "tests/check_files/textbook_3r.py"),
                      ("planar3r", ROOT / "examples/check/my_3r_buggy.m")):
        times: dict[str, list[float]] = {"off": [], "auto": []}
        for k in range(repeats):
            for mode in ("off", "auto") if k % 2 == 0 else ("auto", "off"):
                t, rc = timed(["check", arm, str(file), "--out", str(work / f"one-{mode}"), "--sandbox", mode, *ARGS],
                              ROOT, work)
                if rc not in (0, 1):
                    raise SystemExit(f"check {file} --sandbox {mode} exited {rc}")
                times[mode].append(t)
        off, auto = statistics.median(times["off"]), statistics.median(times["auto"])
        print(f"  {file.name:32s} {off:8.2f} {auto:9.2f} {auto - off:13.2f} {auto / off:6.2f}")


def make_class(folder: Path) -> None:
    folder.mkdir()
    sources = [ROOT / "examples/check/my_3r_buggy.py", ROOT / "examples/check/my_3r_buggy.m",
               ROOT / "tests/check_files/textbook_3r.py"]
    for i in range(10):
        for src in sources:
            shutil.copy(src, folder / f"s{i:02d}_{src.stem}{src.suffix}")


def a_class(work: Path, baseline: Path | None) -> None:
    cls = work / "class"
    make_class(cls)
    runs = [("off", ROOT, ["--sandbox", "off"]), ("auto", ROOT, ["--sandbox", "auto"])]
    if baseline is not None:
        runs.insert(0, (f"before ({baseline})", baseline, []))
    print(f"a class of {len(list(cls.iterdir()))} submissions (planar3r, --jobs 2, --states 1000 --random-params 20)")
    results = {}
    for name, tree, extra in runs:
        out = work / f"class-{len(results)}"
        t, rc = timed(["check", "planar3r", str(cls), "--summary", str(out / "grades.csv"), "--out", str(out / "r"),
                       "--jobs", "2", *ARGS, *extra], tree, work)
        results[name] = t
        print(f"  {name:40s} {t:7.1f} s  (exit {rc})")
    if "off" in results:
        print(f"  auto / off: {results['auto'] / results['off']:.2f}")
    if baseline is not None:
        print(f"  auto / before: {results['auto'] / results[runs[0][0]]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-class", action="store_true", help="skip the class of 30")
    ap.add_argument("--baseline-tree", type=Path, help="another crossdyn source tree to grade the class with")
    args = ap.parse_args()
    from crossdyn import sandbox
    print("isolation (auto):", sandbox.isolation(sandbox.Policy()).describe())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        per_submission(args.repeats, work)
        if not args.no_class:
            a_class(work, args.baseline_tree)


if __name__ == "__main__":
    main()
