"""A pytest plugin so your own test suite can assert that engines agree on your arm, in one line.

Installed with crossdyn (entry point ``pytest11``); it imports nothing heavy until used::

    def test_my_arm_engines_agree(crossdyn_engines_agree):
        crossdyn_engines_agree("my_arm.toml", engines=["pybullet", "mujoco-rk4", "pinocchio"])

or without the fixture::

    from crossdyn.pytest_plugin import assert_engines_agree
    assert_engines_agree("planar3r")

On failure the assertion message lists every metric out of tolerance, by engine.
"""
from __future__ import annotations

import pytest


def assert_engines_agree(arm, engines=None, profile=None, duration: float = 1.0, dt: float = 1e-3,
                         tolerances=None, states: int = 200, convergence: bool = False) -> dict:
    """Run a comparison (short by default) and raise ``AssertionError`` unless every metric passes.

    ``arm`` is a preset name, a TOML path or an :class:`~crossdyn.models.spec.ArmSpec`; ``tolerances``
    a :class:`~crossdyn.comparison.tolerances.Tolerances` or a TOML path.  Returns the summary dict.
    """
    from crossdyn.comparison.compare import CompareOptions, compare
    from crossdyn.comparison.tolerances import Tolerances, load_tolerances
    from crossdyn.models import load_arm

    if isinstance(tolerances, str):
        tolerances = load_tolerances(tolerances)
    opt = CompareOptions(duration=duration, dt=dt, engines=tuple(engines) if engines else None,
                         profile=profile, tolerances=tolerances or Tolerances(), n_states=states,
                         convergence_dts=(4e-3, 2e-3, 1e-3) if convergence else ())
    result = compare(load_arm(arm), opt)
    if not result.passed:
        raise AssertionError(f"engines disagree on {result.spec.name}:\n  " + "\n  ".join(result.summary["failures"]))
    return result.summary


@pytest.fixture
def crossdyn_engines_agree():
    """The function :func:`assert_engines_agree`, as a fixture."""
    return assert_engines_agree
