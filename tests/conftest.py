import os

# JAX/MJX tests: XLA's CPU backend optimisation level 0, set before JAX starts.  MJX's functions are large and
# compile about 5× faster (mjx.step: 21 s → 4 s measured on a loaded 2-core machine); the arithmetic is the same
# up to last-bit effects such as fused multiply-adds, far below every tolerance of these tests.  The command line
# and the benchmarks compile with XLA's defaults.
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=0").strip()

from pathlib import Path

import numpy as np
import pytest

from crossdyn.models import get_preset

PRESET_NAMES = ["planar2r", "planar3r", "planar2r-pointmass", "planar3r-general"]


@pytest.fixture(params=PRESET_NAMES)
def preset(request):
    return get_preset(request.param)


def random_states(n: int, count: int, seed: int = 0, qd_max: float = 10.0, qdd_max: float = 50.0):
    """(q, q̇, q̈) uniformly at random: q in [-π, π], |q̇| ≤ qd_max, |q̈| ≤ qdd_max."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-qd_max, qd_max, (count, n)),
            rng.uniform(-qdd_max, qdd_max, (count, n)))


TIMING_KEYS = {"us_per_step", "compute_s_per_sim_s"}


def strip_timings(obj):
    """A summary without its timings (the only numbers allowed to differ between identical runs)."""
    if isinstance(obj, dict):
        return {k: strip_timings(v) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


CHECK_FILES = Path(__file__).resolve().parent / "check_files"


def edited_copy(folder: Path, tmp_path, base: str, old: str, new: str, name: str) -> str:
    """A copy of ``folder/base`` in ``tmp_path/name`` with one edit (which must apply exactly once)."""
    src = (folder / base).read_text()
    assert src.count(old) == 1, f"edit target not unique in {base}: {old!r}"
    path = tmp_path / name
    path.write_text(src.replace(old, new))
    return str(path)
