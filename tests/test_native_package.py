"""crossdyn.native (issue 22): one sub-package per phenomenon behind one record, the grouped calls still accepting
the old ones, every name in its home under crossdyn.native, and engine failures told from crossdyn's bugs."""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from crossdyn.native import Experiment, Phenomenon, phenomena
from crossdyn.native.experiment import engine_failure, experiment_form, legacy_form

HOMES = {  # a name each of issue 22's moves took to crossdyn.native (the old crossdyn.drive and crossdyn.comparison
    # paths are gone: tests/test_moved_modules.py)
    "crossdyn.native.limits.episodes": "contacts",
    "crossdyn.native.limits.softness": "held_load_give",
    "crossdyn.native.fitting": "fit",
    "crossdyn.native.limits.runs": "characterise_native",
    "crossdyn.native.friction.softness": "creep_floor",
    "crossdyn.native.contact.verdict": "table",
    "crossdyn.native.contact.calibration": "calibrate_mujoco_contact",
    "crossdyn.native.effort": "native_effort_check",
    "crossdyn.native.limits.verdict": "judge_native_run",
    "crossdyn.native.friction.verdict": "failures",
}


@pytest.mark.parametrize("home", sorted(HOMES))
def test_the_moved_names_live_in_crossdyn_native(home):
    assert callable(getattr(importlib.import_module(home), HOMES[home]))


def test_every_phenomenon_registers_the_same_record():
    found = phenomena()
    assert list(found) == ["limits", "friction", "contact"]
    for name, ph in found.items():
        assert isinstance(ph, Phenomenon) and ph.name == name
        assert callable(ph.applies) and callable(ph.episodes) and callable(ph.judge) and callable(ph.failures)
        assert ph.failures({}) == []
    assert found["limits"].native_variant("mujoco") == "mujoco@native_limits=true"
    assert found["contact"].native_variant("pinocchio") is None
    assert set(found["contact"].calibrate) == {"mujoco", "pybullet"} and found["friction"].calibrate == {}


def test_the_grouped_form_and_the_old_call_are_the_same_call():
    seen = []

    @experiment_form("engine", "reference")
    def f(exp: Experiment, engine: str = "e", reference=None):
        seen.append((exp.spec, exp.profile, exp.duration, exp.dt, engine, reference))

    f(Experiment("spec", "profile", [0.0], [0.0], 1.5, 2e-3), "mujoco", reference="ref")
    f("spec", "profile", [0.0], [0.0], 1.5, 2e-3, "mujoco", reference="ref")
    f(spec="spec", profile="profile", q0=[0.0], qd0=[0.0], duration=1.5, dt=2e-3, engine="mujoco", reference="ref")
    assert seen[0] == seen[1] == seen[2]
    f("spec", "profile", [0.0], [0.0], 1.5)  # the old default dt and the new defaults
    assert seen[-1] == ("spec", "profile", 1.5, 1e-3, "e", None)
    with pytest.raises(TypeError):
        f("spec", "profile", [0.0], [0.0])  # duration missing, as before


def test_legacy_form_packs_a_group_anywhere():
    @legacy_form(("a", "lo", "hi", "scale"), 3, lambda d: ((d.pop("a"), (d.pop("lo"), d.pop("hi"))), d),
                 marker=tuple, at=1)
    def g(a, bounds: tuple, scale: float = 1.0):
        return a, bounds, scale

    assert g(1, (2, 3)) == g(1, 2, 3) == (1, (2, 3), 1.0)
    assert g(1, 2, 3, 4.0) == g(1, (2, 3), scale=4.0) == (1, (2, 3), 4.0)


def test_engine_failures_are_told_from_crossdyns_own_bugs():
    from crossdyn.errors import EngineError, InputError

    def raised(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 — the exception itself is the subject
            return e
        raise AssertionError("nothing raised")

    assert engine_failure(EngineError("the engine could not"))
    assert not engine_failure(InputError("bad input"))
    from crossdyn.native.fitting import head

    assert not engine_failure(raised(lambda: head(None, 1.0, 1e-3)))  # an AttributeError in crossdyn's own code
    assert engine_failure(raised(lambda: np.linalg.inv(np.zeros((2, 2)))))  # raised inside a library


def test_the_contact_verdict_writes_the_status_enum():
    """contact_native wrote "error", a status no list has: an engine that cannot run is RunStatus.FAILED."""
    from crossdyn.models import get_preset
    from crossdyn.native.contact.reference import spec_law
    from crossdyn.native.contact.runs import _native_entry
    from crossdyn.status import RunStatus

    spec = get_preset("planar2r-floor")
    exp = Experiment(spec, None, np.zeros(2), np.zeros(2), 0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        entry = _native_entry(exp, "mujoco@native_contact=true@no_such_option=1", spec_law(spec), None, [])
    assert entry["status"] == RunStatus.FAILED == "failed" and entry["reason"]
