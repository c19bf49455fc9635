"""The deprecated paths of modules that moved up a level, to :mod:`crossdyn.native` (issue 22).

``crossdyn.drive`` is level 6 and ``crossdyn.native`` level 7: an old ``crossdyn.drive.limit_contacts`` that
imported its new home would point upward.  So the shims left at the old paths re-export lazily (PEP 562 module
``__getattr__``): a name is looked up in the new modules only when the old path is used, and drive itself never
imports native.  Each shim warns (``DeprecationWarning``) when it is imported.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable


def forward(old: str, new: tuple[str, ...]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(``__getattr__``, ``__dir__``) for the shim module ``old``: a name is looked up in the modules ``new``, in
    order, on first use."""
    def __getattr__(name: str) -> Any:
        for module in new:
            target = importlib.import_module(module)
            if hasattr(target, name):
                return getattr(target, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (it moved to {', '.join(new)})")

    def __dir__() -> list[str]:
        return sorted({n for module in new for n in dir(importlib.import_module(module))})

    return __getattr__, __dir__
