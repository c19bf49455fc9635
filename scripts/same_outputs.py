"""Are two runs' outputs the same?  ``python scripts/same_outputs.py BEFORE AFTER [--allow-new]``

Compares every ``summary.json`` (timings excepted: ``us_per_step``, ``compute_s_per_sim_s``), every
``timeseries.csv`` (byte for byte), every exported file under an ``export`` folder (``.urdf``, ``.xml``, ``.toml``:
byte for byte), every ``batch_summary.json``, every ``check.json`` (``runtime_s`` excepted), every ``identify.json``
(``runtime_s``, ``optimiser_seconds`` excepted) and every sweep's Parquet rows under ``results/`` (all chunk files of
the folder as one table, rows ordered by arm, engine, dt, profile; the timing columns ``us_per_step``,
``compute_s_per_sim_s``, ``group_wall_s`` and ``chunk`` excepted: a chunk's file name and key hash its inputs and the
row schema) found under BEFORE with the file (folder) at the same place under AFTER.  JSON numbers and Parquet cells that differ are accepted within
1e-12 relative (reordered arithmetic can move the last bit); each such field is listed.
``scripts/reference_runs.sh`` makes the runs.  Used to show that a refactor changed no behaviour, e.g.::

    git stash; crossdyn demo --out /tmp/before/demo; crossdyn check planar3r examples/check/my_3r_buggy.py \\
        --out /tmp/before/check; git stash pop   # and the same into /tmp/after
    python scripts/same_outputs.py /tmp/before /tmp/after

With ``--allow-new``, a field (JSON key, Parquet column) present only in AFTER is listed as new and not counted as
a difference: a change that only adds outputs, e.g. the check counts of issue 23 (``checks``, ``<group>_checks``,
``<group>_verdict``, ``inconclusive`` in the sweep's rows), leaves every field BEFORE had unchanged.  A field that
changed its value still differs: the sweep rows' ``verdict`` words (``pass``/``fail`` under
``crossdyn.sweep-row/1``, ``PASS``/``FAIL``/``INCONCLUSIVE`` under ``/2``) and ``schema`` do, on purpose.

Exit 0 when everything matches, 1 otherwise (each difference printed).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

TIMING_KEYS = {"us_per_step", "compute_s_per_sim_s", "runtime_s", "seconds", "wall_s", "worker", "finished",
               "elapsed_s", "time_s", "optimiser_seconds", "group_wall_s", "run_s", "compile_s",
               "us_per_trajectory_step", "us_per_trajectory_step_with_compile"}
REL = 1e-12
NEAR: list[str] = []  # fields equal only within REL
NEW: list[str] = []   # fields only in AFTER, accepted with --allow-new
ALLOW_NEW = False


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
        new = sorted(set(b) - set(a)) if ALLOW_NEW else []
        NEW.extend(f"{where}.{k}" for k in new)
        out = [f"{where}.{k}: only in one" for k in (set(a) ^ set(b)) - set(new)]
        for k in a.keys() & b.keys():
            out += paths_differ(a[k], b[k], f"{where}.{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{where}: lengths {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in paths_differ(x, y, f"{where}[{i}]")]
    if a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b):  # NaN == NaN here
        return []
    if isinstance(a, float) and isinstance(b, float) and abs(a - b) <= REL * max(abs(a), abs(b)):
        NEAR.append(where)
        return []
    return [f"{where}: {a!r} != {b!r}"]


def parquet_rows(path: Path) -> list:
    """The rows of a sweep's ``results`` folder (every chunk file), in a fixed order, without timings and chunk keys."""
    import pandas as pd

    df = pd.concat([pd.read_parquet(f) for f in sorted(path.glob("*.parquet"))], ignore_index=True)
    df = df.sort_values(["arm", "engine", "dt", "profile"], kind="stable").reset_index(drop=True)
    df = df[[c for c in df.columns if c not in TIMING_KEYS and c != "chunk"]]
    rows = df.to_dict(orient="records")
    return json.loads(json.dumps(rows, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v)))


def main(before: str, after: str) -> int:
    before, after = Path(before), Path(after)
    pats = ("summary.json", "timeseries.csv", "check.json", "identify.json", "batch_summary.json", "export/*.urdf",
            "export/*.xml", "export/*.toml")
    files = sorted({*(p for pat in pats for p in before.rglob(pat)), *(p.parent for p in before.rglob("results/*.parquet"))})
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
        if f.suffix in (".csv", ".urdf", ".xml", ".toml"):
            diffs = [] if f.read_bytes() == g.read_bytes() else ["contents differ"]
        else:
            if f.is_dir():
                a, b = parquet_rows(f), parquet_rows(g)
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
    if NEW:
        fields = sorted({w.split(".")[-1] for w in NEW})
        print(f"new in AFTER, not counted (--allow-new): {len(NEW)} fields named {', '.join(fields)}")
    if NEAR:
        print(f"equal within {REL:g} relative, not bit for bit ({len(NEAR)} fields):")
        for w in NEAR[:50]:
            print(f"    {w}")
    return 1 if bad else 0


if __name__ == "__main__":
    argv = [a for a in sys.argv[1:] if a != "--allow-new"]
    ALLOW_NEW = len(argv) < len(sys.argv) - 1
    if len(argv) != 2:
        sys.exit("usage: python scripts/same_outputs.py BEFORE AFTER [--allow-new]")
    sys.exit(main(*argv))
