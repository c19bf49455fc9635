"""A default `crossdyn check` of a 3R written in MATLAB (GNU Octave) against the same file in Python.

The worked example of docs/tutorial/first-check.md (examples/check/my_3r_buggy.py) and its MATLAB transcription (my_3r_buggy.m)
are checked alternately, with the default 1,000 states x 21 parameter sets; the wall time of `check()`
(Octave's start included) is compared.  Target (issue 18): MATLAB at most 3x Python.

    python benchmarks/check_matlab.py [--repeats N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crossdyn.checking.checker import check  # noqa: E402
from crossdyn.equations.octave_session import find_octave, octave_version  # noqa: E402


def matlab_vs_python(repeats: int = 3) -> dict | None:
    """Median wall seconds of each check and their ratio; None without Octave."""
    if find_octave() is None:
        return None
    files = {"python": ROOT / "examples/check/my_3r_buggy.py", "matlab": ROOT / "examples/check/my_3r_buggy.m"}
    times = {k: [] for k in files}
    for _ in range(repeats):
        for lang, f in files.items():            # alternated, so machine load affects both alike
            t = time.perf_counter()
            r = check("planar3r", f)
            times[lang].append(time.perf_counter() - t)
            assert [x.entry for x in r.wrong] == ["M11", "M12"]
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"python_s": med["python"], "matlab_s": med["matlab"], "ratio": med["matlab"] / med["python"],
            "octave": octave_version()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    r = matlab_vs_python(ap.parse_args().repeats)
    if r is None:
        print("check, MATLAB vs Python: skipped (no octave-cli)")
        return 0
    print(f"check planar3r, default (1000 states x 21 sets): MATLAB (Octave {r['octave']}) {r['matlab_s']:.2f} s / "
          f"Python {r['python_s']:.2f} s = {r['ratio']:.2f} (target <= 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
