"""Are two runs' outputs the same?  ``python scripts/same_outputs.py BEFORE AFTER``

Compares every ``summary.json`` (timings excepted: ``us_per_step``, ``compute_s_per_sim_s``), every
``timeseries.csv`` (byte for byte) and every ``check.json`` (``runtime_s`` excepted) found under BEFORE with
the file at the same place under AFTER.  Used to show that a refactor changed no behaviour, e.g.::

    git stash; crossdyn demo --out /tmp/before/demo; crossdyn check planar3r examples/check/my_3r_buggy.py \\
        --out /tmp/before/check; git stash pop   # and the same into /tmp/after
    python scripts/same_outputs.py /tmp/before /tmp/after

Exit 0 when everything matches, 1 otherwise (each difference printed).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

TIMING_KEYS = {"us_per_step", "compute_s_per_sim_s", "runtime_s"}


def strip(obj):
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def paths_differ(a, b, where="") -> list[str]:
    if type(a) is not type(b):
        return [f"{where}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        out = [f"{where}.{k}: only in one" for k in set(a) ^ set(b)]
        for k in a.keys() & b.keys():
            out += paths_differ(a[k], b[k], f"{where}.{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{where}: lengths {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in paths_differ(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def main(before: str, after: str) -> int:
    before, after = Path(before), Path(after)
    files = sorted(p for pat in ("summary.json", "timeseries.csv", "check.json") for p in before.rglob(pat))
    if not files:
        print(f"no summary.json, timeseries.csv or check.json under {before}")
        return 1
    bad = 0
    for f in files:
        g = after / f.relative_to(before)
        if not g.exists():
            print(f"MISSING {g}")
            bad += 1
            continue
        if f.suffix == ".csv":
            diffs = [] if f.read_bytes() == g.read_bytes() else ["contents differ"]
        else:
            a, b = strip(json.loads(f.read_text())), strip(json.loads(g.read_text()))
            # paths recorded in the outputs name the output folder itself
            a, b = json.loads(json.dumps(a).replace(str(before), "@")), json.loads(json.dumps(b).replace(str(after), "@"))
            diffs = paths_differ(a, b)
        print(("same     " if not diffs else "DIFFERENT") + f" {f.relative_to(before)}")
        for d in diffs[:20]:
            print(f"    {d}")
        bad += bool(diffs)
    print(f"{len(files) - bad} of {len(files)} files identical" + ("" if not bad else f"; {bad} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
