"""Moved to :mod:`crossdyn.equations.octave_model` (issue 22); this name keeps working, with a DeprecationWarning.

``crossdyn.equations`` sits a level above ``crossdyn.models``, so the names resolve lazily (PEP 562
``__getattr__``): importing this module imports nothing upward; reading a name imports the new module.
"""
from __future__ import annotations

import importlib
import warnings

_NEW = "crossdyn.equations.octave_model"

warnings.warn("crossdyn.models.octave_equations moved to crossdyn.equations.octave_model", DeprecationWarning, stacklevel=2)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_NEW), name)


def __dir__() -> list[str]:
    return dir(importlib.import_module(_NEW))
