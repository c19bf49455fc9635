"""Print the OpenBLAS kernels (``OPENBLAS_CORETYPE`` values) this CPU can execute, other than the one OpenBLAS picks by
default, in the order ``make test-kernels`` runs them (at most ``--count``, default 2).

A fresh ``make test`` failed twice on another CPU because output or a solver's status changed with the BLAS kernel
(a printed DOP853 step count; Clarabel's ``optimal_inaccurate`` under SkylakeX).  ``make test-kernels`` (run by
``.ci/run``) reruns the numerically sensitive tests under other kernels, so that such a test fails here, not on a
user's machine.  A kernel is listed only when the CPU has its instructions (``/proc/cpuinfo`` flags): asking
OpenBLAS for one it cannot execute crashes.  Not x86-64 (no such kernels), or no ``/proc/cpuinfo``: nothing.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

KERNELS = {
    # kernel: the CPU flags its code needs; the order is the order they are tried
    "Sandybridge": {"avx"},
    "Haswell": {"avx2", "fma"},
    "SkylakeX": {"avx512f", "avx512dq", "avx512bw", "avx512vl"},
    "Zen": {"avx2", "fma"},
}


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    return set(m.group(1).split()) if m else set()


def default_kernels() -> set[str]:
    """The kernels OpenBLAS picks by default here (NumPy's and SciPy's copies each print one)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env["OPENBLAS_VERBOSE"] = "2"
    out = subprocess.run([sys.executable, "-c", "import numpy, scipy.linalg"], env=env, capture_output=True,
                         text=True, timeout=120)
    return set(re.findall(r"Core:\s*(\w+)", out.stdout + out.stderr))


def others(flags: set[str], default: set[str], count: int) -> list[str]:
    """The first ``count`` kernels of :data:`KERNELS` whose instructions ``flags`` has, other than ``default``."""
    return [k for k, need in KERNELS.items() if need <= flags and k not in default][:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2)
    args = parser.parse_args(argv)
    if platform.machine() not in ("x86_64", "AMD64"):
        return 0
    print(" ".join(others(cpu_flags(), default_kernels(), args.count)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
