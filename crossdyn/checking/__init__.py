"""Judging a user's hand-derived equations: ``check`` and its parts.

``checker`` (the short orchestrator: :func:`check`), ``options`` (:class:`CheckOptions`), ``sampling`` (random
states and parameter sets), ``evaluation`` (calling the user's M, C, G and the reference), ``entries`` (entry by
entry), ``structure`` (symmetry, skew-symmetry, Christoffel, energy), ``explanations`` (one mistake that explains
many entries), ``wrong_arm`` (a file written for another arm), ``entry_diagnosis`` / ``diagnosis`` /
``general_sets`` (the terms that are off and the polynomial their error follows), ``results`` (the frozen result
records and status enums), ``report`` (text, Markdown, HTML) and ``grading`` (a whole class at once).

``check``, ``CheckOptions`` and ``CheckResult`` are importable from here; they load on first use.
"""
from __future__ import annotations

from typing import Any

_LAZY = {"check": "checker", "CheckOptions": "options", "CheckResult": "results"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"crossdyn.checking.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'crossdyn.checking' has no attribute {name!r}")
