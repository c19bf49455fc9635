"""The default question, asked of every preset: ``crossdyn compare PRESET`` with no options (issue 39).

Each preset of ``crossdyn arms`` (the ``planar<N>r`` family by its two named members) is compared with no option
but ``--out`` and ``--no-plots`` (the plots are the report's, not the question's), one after the other in fresh
processes, in one run.  Printed per preset: the verdict, the exit status, the wall time, the step it ran at (the
judgeable-step rule, :mod:`crossdyn.comparison.dt_choice`), each declared phenomenon's checks (limits, contact,
friction, effort; 0 means not exercised) and any line that was not a PASS; the machine's load average before each
run and at the start.  The goal: PASS everywhere, every declared phenomenon with checks > 0, each run ≤ 20 s on an
idle 2-core machine (the time depends on the machine and its load; the load is printed beside every figure).

    python benchmarks/defaults.py [--presets planar2r,rp-polar] [--out DIR] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PHENOMENA = ("limits", "contact", "friction", "effort")


def presets() -> list[str]:
    """Every preset ``crossdyn arms`` lists (the planar<N>r family left out: planar2r and planar3r are in)."""
    from crossdyn.models.presets import preset_names, spatial_preset_names

    return [name for name in preset_names() if "<" not in name] + spatial_preset_names()


def load() -> float:
    """The 1-minute load average (0.0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def run_one(name: str, out: Path) -> dict:
    """``crossdyn compare NAME --out OUT/NAME --no-plots``, timed; its summary's verdict, dt and checks."""
    before = load()
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "crossdyn", "compare", name, "--out", str(out / name),
                           "--no-plots", "--quiet"], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    (out / f"{name}.txt").write_text(proc.stdout + proc.stderr)  # what the user saw
    row = {"preset": name, "exit": proc.returncode, "wall_s": round(wall, 2), "load_before": round(before, 2)}
    summary = out / name / "summary.json"
    if not summary.exists():
        return {**row, "verdict": "ERROR", "lines": proc.stderr.strip().splitlines()[-3:]}
    s = json.loads(summary.read_text())
    checks = {k: v for k, v in s.get("checks", {}).items() if isinstance(v, int)}
    row.update(verdict=s.get("verdict"), dt=s.get("dt"), dt_line=(s.get("dt_choice") or {}).get("line", ""),
               phenomena={p: checks.get(p) for p in PHENOMENA if p in checks or declared(s, p)},
               lines=list(s.get("failures", [])) + list(s.get("inconclusive", [])))
    return row


def declared(summary: dict, phenomenon: str) -> bool:
    """Whether the arm declares the phenomenon (its section is in the summary)."""
    return summary.get(phenomenon) is not None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", help="comma-separated presets (default: every one)")
    ap.add_argument("--out", help="folder for the runs' outputs (default: a temporary one)")
    ap.add_argument("--json", help="write the rows to this JSON file")
    args = ap.parse_args(argv)
    names = args.presets.split(",") if args.presets else presets()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="crossdyn-defaults-"))
    print(f"crossdyn compare PRESET, no options ({len(names)} presets; {os.cpu_count()} CPUs, load "
          f"{load():.2f} at the start; the goal: PASS, every declared phenomenon checked, <= 20 s idle)")
    print(f"{'preset':20s} {'verdict':13s} {'exit':>4s} {'wall s':>7s} {'load':>5s} {'dt s':>9s}  phenomena (checks)")
    rows = []
    for name in names:
        row = run_one(name, out)
        rows.append(row)
        ph = ", ".join(f"{p} {c}" for p, c in row.get("phenomena", {}).items()) or "-"
        dt = f"{row['dt']:g}" if row.get("dt") else "-"
        print(f"{name:20s} {row['verdict']:13s} {row['exit']:4d} {row['wall_s']:7.1f} {row['load_before']:5.2f} "
              f"{dt:>9s}  {ph}", flush=True)
        for line in row.get("lines", [])[:3]:
            print(f"    {line[:300]}")
    passed = sum(r["verdict"] == "PASS" for r in rows)
    print(f"{passed}/{len(rows)} PASS; total {sum(r['wall_s'] for r in rows):.0f} s; load {load():.2f} at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
