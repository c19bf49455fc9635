"""Deprecated: the native-friction verdict moved to :mod:`crossdyn.native.friction.verdict`; re-exported here
(issue 22)."""
import warnings

from crossdyn.native.friction.verdict import FACTOR, ORDER_FACTOR, failures, judge

__all__ = ["FACTOR", "ORDER_FACTOR", "failures", "judge"]

warnings.warn("crossdyn.comparison.native_friction moved to crossdyn.native.friction.verdict", DeprecationWarning,
              stacklevel=2)
