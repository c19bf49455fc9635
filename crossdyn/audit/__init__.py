"""``crossdyn audit FILE [FILE…]``: what robot files of one robot say, side by side, and how each engine reads them.

* :mod:`~crossdyn.audit.match`: which body is which (name, joint name, place in the tree) and the common frame
  (world at q = 0);
* :mod:`~crossdyn.audit.filediff`: every parameter side by side, differences beyond stated tolerances;
* :mod:`~crossdyn.audit.enginediff`: random states within the limits; M, G, C·q̇, ID from crossdyn's spatial
  reference and from each engine;
* :mod:`~crossdyn.audit.explain`: the parameter behind each difference (substitution between files, fitted
  hypotheses for engines);
* :mod:`~crossdyn.audit.result`: the typed result, its verdict and ``summary.json``;
* :mod:`~crossdyn.audit.run`: :func:`audit`, the whole of it.
"""
from __future__ import annotations

from crossdyn.audit.result import AuditResult, Tolerances, TOLERANCE_SOURCES
from crossdyn.audit.run import audit

__all__ = ["AuditResult", "TOLERANCE_SOURCES", "Tolerances", "audit"]
