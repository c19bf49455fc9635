"""Moved to crossdyn.analytic.laws.limit (the law) and crossdyn.analytic.references.limits (the reference) (issue 22).

``crossdyn.analytic.limits`` keeps working (the docs document it): it re-exports the names it held, with a
DeprecationWarning."""
import warnings

from crossdyn.analytic.laws.limit import LimitLaw
from crossdyn.analytic.references.limits import LimitRun, rk4_limits, simulate_limits

__all__ = ["LimitLaw", "LimitRun", "rk4_limits", "simulate_limits"]

warnings.warn(
    "crossdyn.analytic.limits moved to crossdyn.analytic.laws.limit (the law) and crossdyn.analytic.references.limits (the reference)",
    DeprecationWarning, stacklevel=2)
