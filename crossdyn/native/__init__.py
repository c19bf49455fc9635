"""crossdyn.native: each engine's own limits, friction and contact, measured and judged against crossdyn's laws.

In a comparison crossdyn applies its own laws to every engine (applied mode, :mod:`crossdyn.drive`); natively
(``compare --native``, ``--characterise-friction``, ``--calibrate-limits``, ``--calibrate-contact``) each engine's
own mechanism acts instead, and this package measures how far it is from the law.  One sub-package per
phenomenon, the same files in each where the phenomenon has them::

    native/
      experiment.py   Experiment (spec, profile, q0, qd0, duration, dt), NativeRun, Phenomenon, engine_failure
      fitting.py      the calibrations' Nelder–Mead, the RMS residual, the Richardson factor
      effort.py       does an engine honour the effort limit by itself
      limits/         episodes.py  softness.py  calibration.py  reference.py  runs.py  verdict.py
      friction/       episodes.py  softness.py                                runs.py  verdict.py
      contact/        episodes.py  softness.py  calibration.py  reference.py  runs.py  verdict.py

* ``episodes``: the per-episode characterisation of one run (limit contacts, stick intervals, contact episodes);
* ``softness``: side runs measuring the engine's own softness (the allowance a verdict grants);
* ``calibration``: the engine's settings fitted to the law;
* ``reference``: the law's run a native run is judged against;
* ``runs``: the engines run natively (which names, which settings);
* ``verdict``: judging — PASS/FAIL per quantity with its tolerance's terms, and the failure lines.

**The interface.**  Each sub-package exports ``PHENOMENON``, a :class:`~crossdyn.native.experiment.Phenomenon`
with the same fields, and :data:`PHENOMENA` maps the names to them, so that a driving loop can take every
phenomenon alike::

    for ph in PHENOMENA.values():
        if not ph.applies(spec):
            continue
        names = [v for v in map(ph.native_variant, engines) if v]      # the engines with their own mechanism
        contacts = ph.episodes(spec, law, traj, native=True)            # per run
        result = ph.characterise(Experiment(spec, profile, q0, qd0, T, dt), engines)   # per experiment
        failures += ph.failures(verdicts)                               # verdicts: engine -> verdict
        for family, fit in ph.calibrate.items(): ...

Every function that took the experiment's six values (``spec, profile, q0, qd0, duration, dt``) takes one
:class:`~crossdyn.native.experiment.Experiment` now and still accepts the old call.  Level 7: imports drive,
engines, analytic, models, errors and status, never comparison.
"""
from __future__ import annotations

from typing import Any

from crossdyn.native.experiment import Experiment, NativeRun, Phenomenon

__all__ = ["PHENOMENA", "Experiment", "NativeRun", "Phenomenon", "phenomena"]

_PHENOMENA = ("limits", "friction", "contact")


def phenomena() -> dict[str, Phenomenon]:
    """name → :class:`Phenomenon` of every phenomenon (imports its sub-package on first use)."""
    import importlib

    return {name: importlib.import_module(f"crossdyn.native.{name}").PHENOMENON for name in _PHENOMENA}


def __getattr__(name: str) -> Any:
    if name == "PHENOMENA":  # built lazily: importing crossdyn.native.effort need not import every phenomenon
        return phenomena()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
