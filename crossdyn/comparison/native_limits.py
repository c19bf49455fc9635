"""Deprecated: the native-limit verdict moved to :mod:`crossdyn.native.limits.verdict` (its continuous reference
to :mod:`crossdyn.native.limits.reference`); re-exported here (issue 22)."""
import warnings

from crossdyn.native.fitting import richardson_factor
from crossdyn.native.limits.reference import continuous_reference
from crossdyn.native.limits.verdict import NATIVE_ORDER, TORQUE_QUANTITIES, judge, judge_native_run

__all__ = ["NATIVE_ORDER", "TORQUE_QUANTITIES", "continuous_reference", "judge", "judge_native_run",
           "richardson_factor"]

warnings.warn("crossdyn.comparison.native_limits moved to crossdyn.native.limits.verdict", DeprecationWarning,
              stacklevel=2)
